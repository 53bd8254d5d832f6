/// <reference types="jest" />
import { HOURLY_PRUNE_LIMIT, type HourlyCount } from '../hourly-activity';
import type { Context } from './contract.fixtures';

const H = (n: number): string => new Date(Date.UTC(2026, 10, 27, 0) + n * 3_600_000).toISOString();

function count(webhookId: string, hour: number, outcome: string, n: number): HourlyCount {
  return { webhookId, hour: H(hour), outcome, count: n };
}

/** Per-webhook counts by hour and outcome, written by the ingress's activity batches (the Config page's chart). */
export function hourlyActivityContract(context: Context): void {
  describe('hourly counts', () => {
    it('adds counts across batches and within one, per (webhook, hour, outcome)', async () => {
      const { store, ns } = context();
      const w = `${ns}-w`;
      await store.recordHourlyCounts(
        [count(w, 10, 'accepted', 2), count(w, 10, 'refused:wrong_secret', 1), count(w, 10, 'accepted', 3)],
        H(0),
      );
      await store.recordHourlyCounts([count(w, 10, 'accepted', 4), count(w, 11, 'filtered', 1)], H(0));
      await store.recordHourlyCounts([], H(0));

      expect(await store.hourlyCounts(w, H(0), H(24))).toEqual([
        count(w, 10, 'accepted', 9),
        count(w, 10, 'refused:wrong_secret', 1),
        count(w, 11, 'filtered', 1),
      ]);
    });

    it('answers the hours from `from` up to `to` excluded, oldest first, and only the webhook asked about', async () => {
      const { store, ns } = context();
      const [w1, w2] = [`${ns}-w1`, `${ns}-w2`];
      await store.recordHourlyCounts(
        [count(w1, 3, 'accepted', 1), count(w1, 5, 'filter_error', 2), count(w1, 4, 'accepted', 3), count(w2, 4, 'accepted', 7)],
        H(0),
      );

      expect(await store.hourlyCounts(w1, H(4), H(5))).toEqual([count(w1, 4, 'accepted', 3)]);
      expect(await store.hourlyCounts(w1, H(3), H(6))).toEqual([
        count(w1, 3, 'accepted', 1),
        count(w1, 4, 'accepted', 3),
        count(w1, 5, 'filter_error', 2),
      ]);
      expect(await store.hourlyCounts(w2, H(0), H(24))).toEqual([count(w2, 4, 'accepted', 7)]);
      // A webhook nobody counted (an unknown id is never written): no rows, not another webhook's.
      expect(await store.hourlyCounts(`${ns}-unknown`, H(0), H(24))).toEqual([]);
    });

    it('deletes the hours before pruneBefore in the same write, at most HOURLY_PRUNE_LIMIT rows each time', async () => {
      const { store, ns } = context();
      const w = `${ns}-w`;
      // Hours of 1000 days before H(0): far older than any other test's, so this test's prune sees only these.
      const old = (n: number): HourlyCount => ({ webhookId: w, hour: H(n - 24_000), outcome: `refused:r${n}`, count: 1 });
      await store.recordHourlyCounts(
        Array.from({ length: HOURLY_PRUNE_LIMIT + 2 }, (_, n) => old(n)),
        H(-30_000),
      );
      await store.recordHourlyCounts([count(w, 60, 'accepted', 1)], H(-24_000 + HOURLY_PRUNE_LIMIT + 5));
      const left = await store.hourlyCounts(w, H(-30_000), H(-20_000));
      // The oldest hours go first; what one write leaves, the next takes.
      expect(left).toEqual([old(HOURLY_PRUNE_LIMIT), old(HOURLY_PRUNE_LIMIT + 1)]);
      await store.recordHourlyCounts([], H(-24_000 + HOURLY_PRUNE_LIMIT + 5));
      expect(await store.hourlyCounts(w, H(-30_000), H(-20_000))).toEqual([]);
      expect(await store.hourlyCounts(w, H(0), H(100))).toEqual([count(w, 60, 'accepted', 1)]);
    });

    it('keeps the hours from pruneBefore on', async () => {
      const { store, ns } = context();
      const w = `${ns}-w`;
      await store.recordHourlyCounts([count(w, 1, 'accepted', 1), count(w, 2, 'accepted', 2), count(w, 3, 'filtered', 3)], H(0));
      await store.recordHourlyCounts([count(w, 50, 'accepted', 1)], H(2));
      expect(await store.hourlyCounts(w, H(0), H(60))).toEqual([
        count(w, 2, 'accepted', 2),
        count(w, 3, 'filtered', 3),
        count(w, 50, 'accepted', 1),
      ]);
    });

    it('rejects an hour that is not an hour start or a count that is not a positive integer with RangeError, writing nothing', async () => {
      const { store, ns } = context();
      const w = `${ns}-w`;
      const good = count(w, 1, 'accepted', 1);
      const bad: HourlyCount[] = [
        { ...good, hour: '2026-11-27T01:30:00.000Z' },
        { ...good, hour: 'yesterday' },
        { ...good, count: 0 },
        { ...good, count: 1.5 },
      ];
      for (const row of bad) await expect(store.recordHourlyCounts([good, row], H(0))).rejects.toBeInstanceOf(RangeError);
      await expect(store.recordHourlyCounts([good], '2026-11-27T00:00:01.000Z')).rejects.toBeInstanceOf(RangeError);
      await expect(store.hourlyCounts(w, 'now', H(2))).rejects.toBeInstanceOf(RangeError);
      expect(await store.hourlyCounts(w, H(0), H(24))).toEqual([]);
    });
  });
}
