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

  it('makes version 7 UUIDs: distinct, in the order they were made, led by the current time', () => {
    const before = Date.now();
    const ids = Array.from({ length: 1000 }, () => cryptoRandom.uuid());
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    const firstMs = parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16);
    expect(firstMs).toBeGreaterThanOrEqual(before);
    expect(firstMs).toBeLessThanOrEqual(after);
  });
});
