import { cryptoRandom } from './system-runtime.adapter';

describe('cryptoRandom', () => {
  it('hands out the requested number of bytes, never the same bytes twice, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i += 1) {
      const bytes = cryptoRandom.bytes(16);
      expect(bytes).toHaveLength(16);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(2000);
    expect(cryptoRandom.bytes(10_000)).toHaveLength(10_000);
  });

  it('gives copies: changing what it returned changes nothing it returns later', () => {
    const first = cryptoRandom.bytes(32);
    const copy = Buffer.from(first);
    first.fill(0);
    expect(cryptoRandom.bytes(32).equals(copy)).toBe(false);
    expect(copy.equals(Buffer.alloc(32))).toBe(false);
  });

  it('makes version 4 UUIDs', () => {
    expect(cryptoRandom.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
