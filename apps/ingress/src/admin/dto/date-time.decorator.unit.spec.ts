import { isRfc3339DateTime } from './date-time.decorator';

describe('isRfc3339DateTime (release_at, expires_at)', () => {
  it.each(['2026-11-27T18:00:00Z', '2026-11-27T19:00:00+01:00', '2026-11-27T18:00:00.123456789-05:30', '2024-02-29T23:59:59Z'])(
    'takes %s',
    (value) => expect(isRfc3339DateTime(value)).toBe(true),
  );

  it.each([
    ['no seconds', '2026-11-27T18:00Z'],
    ['no offset', '2026-11-27T18:00:00'],
    ['a week date', '2020-W01'],
    ['the basic form', '20200101T000000Z'],
    ['a space for T', '2026-11-27 18:00:00Z'],
    ['lower-case t and z', '2026-11-27t18:00:00z'],
    ['the 31st of February (Date.parse makes it 2 March)', '2020-02-31T00:00:00Z'],
    ['the 29th of February of a common year', '2023-02-29T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['day 0', '2026-11-00T00:00:00Z'],
    ['hour 24', '2026-11-27T24:00:00Z'],
    ['minute 60', '2026-11-27T18:60:00Z'],
    ['a leap second, which the platform cannot read', '2016-12-31T23:59:60Z'],
    ['an offset of 24 hours', '2026-11-27T18:00:00+24:00'],
    ['a fraction of 10 digits', '2026-11-27T18:00:00.1234567890Z'],
  ])('refuses %s', (_why, value) => expect(isRfc3339DateTime(value)).toBe(false));

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 5, new Date(), ['2026-11-27T18:00:00Z']]) expect(isRfc3339DateTime(value)).toBe(false);
  });
});
