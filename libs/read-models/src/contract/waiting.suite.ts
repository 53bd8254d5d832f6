/// <reference types="jest" />
import { at, delivery, deliveryRow, parked, parkedRow, project, run, runRow, type Context } from './contract.fixtures';

export function waitingContract(context: Context): void {
  describe('waiting deliveries (accepted after a position, no run yet)', () => {
    it('counts only the deliveries strictly after the position: commit greater, or the same commit and a greater prepare', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-before-commit`, r), at(9, 50)),
        delivery(deliveryRow(`${ns}-before-prepare`, r), at(10, 4)),
        delivery(deliveryRow(`${ns}-at`, r), at(10, 5)),
        delivery(deliveryRow(`${ns}-after-prepare`, r), at(10, 6)),
        delivery(deliveryRow(`${ns}-after-commit`, r), at(11, 0)),
        delivery(deliveryRow(`${ns}-later`, r), at(40, 40)),
      ]);

      expect(await store.waitingDeliveries(r, { after: at(10, 5) }, 100)).toBe(3);
      expect(await store.waitingDeliveries(r, { after: at(10, 4) }, 100)).toBe(4);
      expect(await store.waitingDeliveries(r, { after: at(0, 0) }, 100)).toBe(6);
      expect(await store.waitingDeliveries(r, { after: at(40, 40) }, 100)).toBe(0);
      expect(await store.waitingDeliveries(r, { after: at(11, 0) }, 100)).toBe(1);
    });

    it('compares positions beyond 2^53 as bigints (neighbours told apart)', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const big = 2n ** 60n;
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-d1`, r), at(big, big)),
        delivery(deliveryRow(`${ns}-d2`, r), at(big, big + 1n)),
        delivery(deliveryRow(`${ns}-d3`, r), at(big + 1n, 0)),
      ]);

      expect(await store.waitingDeliveries(r, { after: at(big, big) }, 10)).toBe(2);
      expect(await store.waitingDeliveries(r, { after: at(big, big + 1n) }, 10)).toBe(1);
      expect(await store.waitingDeliveries(r, { after: at(big - 1n, big) }, 10)).toBe(3);
    });

    it('does not count deliveries of another routine (nor of a routine whose id extends or patterns this one)', async () => {
      const { store, ns } = context();
      const [a, b] = [`${ns}-routine-1`, `${ns}-routine-10`];
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-a1`, a), at(5)),
        delivery(deliveryRow(`${ns}-b1`, b), at(6)),
        delivery(deliveryRow(`${ns}-b2`, b), at(7)),
      ]);

      expect(await store.waitingDeliveries(a, { after: at(0) }, 10)).toBe(1);
      expect(await store.waitingDeliveries(b, { after: at(0) }, 10)).toBe(2);
      expect(await store.waitingDeliveries(`${ns}-routine-`, { after: at(0) }, 10)).toBe(0);
      expect(await store.waitingDeliveries(`${ns}-routine-%`, { after: at(0) }, 10)).toBe(0);
    });

    it('does not count a delivery whose run row exists, whenever the run was projected', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-d1`, r), at(5)),
        run(runRow(`${ns}-d1-run`, r), at(6)),
        delivery(deliveryRow(`${ns}-d2`, r), at(7)),
        delivery(deliveryRow(`${ns}-d3`, r), at(8)),
        // A run of another delivery's id scheme: not the run of any delivery here.
        run(runRow(`${ns}-unrelated-run`, r), at(9)),
      ]);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 10)).toBe(2);

      // d2's run comes in a later batch (the dispatcher created it after the hold began).
      await project(store, `${ns}:projector`, [run(runRow(`${ns}-d2-run`, r), at(20))]);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 10)).toBe(1);

      // The run row is found by run_id alone: a run row naming another routine still counts as the run.
      await project(store, `${ns}:projector`, [run(runRow(`${ns}-d3-run`, `${ns}-elsewhere`), at(21))]);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 10)).toBe(0);
    });

    it('looks at the newest `cap` deliveries of the range only: older waiting ones past them are not counted', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-waiting1`, r), at(1)),
        delivery(deliveryRow(`${ns}-waiting2`, r), at(2)),
        ...[3, 4, 5].flatMap((i) => [delivery(deliveryRow(`${ns}-ran${i}`, r), at(i)), run(runRow(`${ns}-ran${i}-run`, r), at(i, i + 1))]),
      ]);

      expect(await store.waitingDeliveries(r, { after: at(0) }, 3)).toBe(0);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 4)).toBe(1);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 5)).toBe(2);
      // Runs made oldest first (a release): what still waits is the newest, counted exactly below the cap.
      expect(await store.waitingDeliveries(r, { after: at(0), before: at(3) }, 1)).toBe(1);
    });

    it('counts only up to `before` (the release), exclusive, and leaves parked deliveries out', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-d1`, r), at(10)),
        delivery(deliveryRow(`${ns}-d2`, r), at(11)),
        delivery(deliveryRow(`${ns}-d3`, r), at(12)),
        delivery(deliveryRow(`${ns}-after-release`, r), at(14)),
      ]);
      expect(await store.waitingDeliveries(r, { after: at(0), before: at(13) }, 10)).toBe(3);
      expect(await store.waitingDeliveries(r, { after: at(0), before: at(12) }, 10)).toBe(2);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 10)).toBe(4);

      await project(store, `${ns}:projector`, [parked(parkedRow(`${ns}-park`, r, { delivery_id: `${ns}-d2` }), at(20))]);
      expect(await store.waitingDeliveries(r, { after: at(0), before: at(13) }, 10)).toBe(2);
    });

    it('answers min(count, cap): the cap bounds the answer, a cap of 0 answers 0', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      await project(
        store,
        `${ns}:projector`,
        Array.from({ length: 7 }, (_, i) => delivery(deliveryRow(`${ns}-d${i}`, r), at(100 + i))),
      );

      expect(await store.waitingDeliveries(r, { after: at(0) }, 3)).toBe(3);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 1)).toBe(1);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 0)).toBe(0);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 7)).toBe(7);
      expect(await store.waitingDeliveries(r, { after: at(0) }, 1_000_000)).toBe(7);
      expect(await store.waitingDeliveries(r, { after: at(103) }, 3)).toBe(3);
      expect(await store.waitingDeliveries(r, { after: at(104) }, 3)).toBe(2);
    });

    it('answers 0 for a routine without deliveries', async () => {
      const { store, ns } = context();

      expect(await store.waitingDeliveries(`${ns}-empty`, { after: at(0) }, 10)).toBe(0);
      expect(await store.waitingDeliveries(`${ns}-empty`, { after: at(0, 0) }, 0)).toBe(0);
    });

    it('rejects a cap that is not a non-negative integer, and a position outside int64, with RangeError', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;

      for (const cap of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
        await expect(store.waitingDeliveries(r, { after: at(0) }, cap)).rejects.toBeInstanceOf(RangeError);
      }
      for (const position of [at(2n ** 63n, 0), at(0, 2n ** 63n), at(-(2n ** 63n) - 1n, 0)]) {
        await expect(store.waitingDeliveries(r, { after: position }, 10)).rejects.toBeInstanceOf(RangeError);
        await expect(store.waitingDeliveries(r, { after: at(0), before: position }, 10)).rejects.toBeInstanceOf(RangeError);
      }
      expect(await store.waitingDeliveries(r, { after: at(2n ** 63n - 1n, 2n ** 63n - 1n) }, 10)).toBe(0);
    });
  });
}
