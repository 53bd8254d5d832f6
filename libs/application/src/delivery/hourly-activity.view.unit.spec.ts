import type { HourlyCount } from '@wts/read-models';
import { HOURS_SHOWN, chartRange, hourlyActivity } from './hourly-activity.view';

const NOW = new Date('2026-11-27T13:42:10.123Z');
const row = (hour: string, outcome: string, count: number): HourlyCount => ({ webhookId: 'whk_A', hour, outcome, count });

describe('hourlyActivity', () => {
  it('given no counts, then 24 zero hours, oldest first, ending with the hour of now', () => {
    const hours = hourlyActivity([], NOW);
    expect(hours).toHaveLength(HOURS_SHOWN);
    expect(hours[0]?.hour).toBe('2026-11-26T14:00:00.000Z');
    expect(hours[23]?.hour).toBe('2026-11-27T13:00:00.000Z');
    expect(new Set(hours.map((hour) => JSON.stringify({ ...hour, hour: '' })))).toEqual(
      new Set([JSON.stringify({ hour: '', accepted: 0, filtered: 0, filter_errors: 0, refused: {} })]),
    );
    expect(chartRange(NOW)).toEqual({ from: '2026-11-26T14:00:00.000Z', to: '2026-11-27T14:00:00.000Z' });
  });

  it('given counts, then each outcome lands in its hour, refusals by reason, and rows outside the 24 hours are left out', () => {
    const hours = hourlyActivity(
      [
        row('2026-11-27T12:00:00.000Z', 'accepted', 5),
        row('2026-11-27T12:00:00.000Z', 'filter_error', 1),
        row('2026-11-27T12:00:00.000Z', 'filtered', 2),
        row('2026-11-27T12:00:00.000Z', 'refused:wrong_secret', 3),
        row('2026-11-27T12:00:00.000Z', 'refused:payload_schema_mismatch', 4),
        row('2026-11-26T14:00:00.000Z', 'accepted', 7),
        row('2026-11-26T13:00:00.000Z', 'accepted', 100),
        row('2026-11-27T14:00:00.000Z', 'accepted', 100),
      ],
      NOW,
    );
    expect(hours[22]).toEqual({
      hour: '2026-11-27T12:00:00.000Z',
      accepted: 5,
      filtered: 2,
      filter_errors: 1,
      refused: { wrong_secret: 3, payload_schema_mismatch: 4 },
    });
    expect(hours[0]?.accepted).toBe(7);
    expect(hours.reduce((sum, hour) => sum + hour.accepted, 0)).toBe(12);
  });
});
