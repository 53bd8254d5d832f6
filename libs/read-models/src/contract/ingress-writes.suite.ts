/// <reference types="jest" />
import { at, attemptRow, delivery, deliveryRow, everything, listed, project, type Context } from './contract.fixtures';

/** What the ingress writes directly (not events): replay counts and rejected attempts. */
export function ingressWritesContract(context: Context): void {
  describe('replays and rejected attempts', () => {
    it('counts replays per delivery (an id twice in one call counts twice) and joins them into deliveries, 0 when none', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const [d1, d2, d3] = [deliveryRow(`${ns}-d1`, r), deliveryRow(`${ns}-d2`, r), deliveryRow(`${ns}-d3`, r)];
      // Recorded before the delivery is projected: the count waits for its row.
      await store.recordReplays([d1.delivery_id, d1.delivery_id, d2.delivery_id]);
      await project(store, `${ns}:projector`, [delivery(d1, at(1)), delivery(d2, at(2)), delivery(d3, at(3))]);
      await store.recordReplays([d1.delivery_id]);
      await store.recordReplays([]);

      expect(await everything((page) => store.deliveries(r, page))).toEqual([listed(d3), listed(d2, 1), listed(d1, 3)]);
    });

    it('keeps only the newest keepPerWebhook attempts of each webhook in the batch, leaving other webhooks untouched', async () => {
      const { store, ns } = context();
      const [w1, w2, w3] = [`${ns}-w1`, `${ns}-w2`, `${ns}-w3`];
      const old1 = [1, 2, 3, 4, 5].map((n) => attemptRow(w1, n));
      const old2 = [1, 2, 3, 4, 5].map((n) => attemptRow(w2, n));
      await store.recordAttempts([...old1, ...old2], 100);

      await store.recordAttempts([attemptRow(w1, 6), attemptRow(w1, 7)], 3);
      expect(await everything((page) => store.attempts(w1, page))).toEqual([attemptRow(w1, 7), attemptRow(w1, 6), attemptRow(w1, 5)]);
      expect(await everything((page) => store.attempts(w2, page))).toEqual([...old2].reverse());

      // One batch longer than keep: its last attempts are the newest.
      const burst = Array.from({ length: 10 }, (_, n) => attemptRow(w3, n));
      await store.recordAttempts(burst, 4);
      expect(await everything((page) => store.attempts(w3, page))).toEqual(burst.slice(6).reverse());

      await store.recordAttempts([attemptRow(w2, 9)], 0);
      expect(await everything((page) => store.attempts(w2, page))).toEqual([]);
      expect(await everything((page) => store.attempts(w1, page))).toHaveLength(3);
      expect(await everything((page) => store.attempts(`${ns}-unknown`, page))).toEqual([]);
    });

    it('rejects a negative or fractional keepPerWebhook with RangeError and writes nothing', async () => {
      const { store, ns } = context();
      for (const keep of [-1, 1.5, Number.NaN]) {
        await expect(store.recordAttempts([attemptRow(`${ns}-w`, 1)], keep)).rejects.toBeInstanceOf(RangeError);
      }
      expect(await everything((page) => store.attempts(`${ns}-w`, page))).toEqual([]);
    });
  });
}
