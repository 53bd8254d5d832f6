import { addHours, hourOf } from './hourly-activity';

describe('hourOf', () => {
  it.each([
    ['2026-11-27T13:00:00.000Z', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27T13:59:59.999Z', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27T14:00:00.000Z', '2026-11-27T14:00:00.000Z'],
    ['2026-11-27T15:30:00+02:00', '2026-11-27T13:00:00.000Z'],
    ['1969-12-31T23:30:00.000Z', '1969-12-31T23:00:00.000Z'],
  ])('puts %s in the hour starting %s', (at, hour) => {
    expect(hourOf(at)).toBe(hour);
    expect(hourOf(new Date(at))).toBe(hour);
  });

  it('answers each time for the time given, whichever hour it asked for last', () => {
    const times = ['2026-11-27T13:10:00.000Z', '2026-11-27T14:10:00.000Z', '2026-11-27T13:50:00.000Z', '2026-11-28T13:10:00.000Z'];
    expect(times.map((at) => hourOf(at))).toEqual([
      '2026-11-27T13:00:00.000Z',
      '2026-11-27T14:00:00.000Z',
      '2026-11-27T13:00:00.000Z',
      '2026-11-28T13:00:00.000Z',
    ]);
    expect(hourOf(addHours('2026-11-27T13:00:00.000Z', 1))).toBe('2026-11-27T14:00:00.000Z');
  });

  it.each(['', 'yesterday', '2026-13-45T99:00:00Z'])('refuses %j, which is no time', (at) => {
    expect(() => hourOf(at)).toThrow(RangeError);
  });

  it('refuses an invalid Date', () => {
    expect(() => hourOf(new Date(Number.NaN))).toThrow(RangeError);
  });
});
