import { rfc3339 } from './rfc3339.format';

describe('rfc3339 (ce_time)', () => {
  it('is toISOString, byte for byte, across days, months, leap years and either side of 1970', () => {
    const instants = [
      0,
      -1,
      1,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1),
      Date.UTC(2026, 0, 15, 9, 31, 2, 417),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(1900, 1, 28, 12),
      Date.UTC(1900, 0, 1),
      new Date('0000-01-01T00:00:00.000Z').getTime(),
      new Date('9999-12-31T23:59:59.999Z').getTime(),
    ];
    // Walks of uneven steps (so every field rolls over), backwards and forwards: the day prefix is cached.
    for (let at = Date.UTC(2023, 11, 31, 22); at < Date.UTC(2024, 0, 1, 2); at += 997) instants.push(at);
    for (let at = Date.UTC(2030, 0, 1); at > Date.UTC(2020, 0, 1); at -= 86_399_999 * 3 + 12_345) instants.push(at);
    let seed = 7;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      instants.push(Date.UTC(1950, 0, 1) + (seed / 2 ** 31) * (Date.UTC(2100, 0, 1) - Date.UTC(1950, 0, 1)));
    }
    const differing = instants
      .map((at) => new Date(Math.floor(at)))
      .filter((date) => rfc3339(date) !== date.toISOString())
      .map((date) => `${date.toISOString()} formatted as ${rfc3339(date)}`);
    expect(differing).toEqual([]);
    expect(instants.length).toBeGreaterThan(20_000);
  });

  it('falls back to toISOString outside years 0000–9999, and throws on an invalid date as it does', () => {
    const far = new Date('+010000-01-01T00:00:00.000Z');
    expect(rfc3339(far)).toBe(far.toISOString());
    const before = new Date('-000001-12-31T23:59:59.999Z');
    expect(rfc3339(before)).toBe(before.toISOString());
    expect(() => rfc3339(new Date(Number.NaN))).toThrow(RangeError);
  });
});
