/// <reference types="jest" />
import {
  at,
  delivery,
  deliveryRow,
  everything,
  listed,
  parked,
  parkedRow,
  project,
  run,
  runRow,
  attemptRow,
  type Context,
} from './contract.fixtures';

/** The projector's side: the checkpoint compare-and-set and what one commit writes. */
export function checkpointContract(context: Context): void {
  describe('checkpoint and commit', () => {
    it('loadCheckpoint is undefined before the first commit and then returns the exact bigint position (values above 2^53)', async () => {
      const { store, ns } = context();
      expect(await store.loadCheckpoint(`${ns}:projector`)).toBeUndefined();

      const to = at(2n ** 53n + 1n, 2n ** 62n + 3n);
      expect(await store.commit(`${ns}:projector`, [], undefined, to)).toBe(true);

      expect(await store.loadCheckpoint(`${ns}:projector`)).toEqual(to);
      expect(await store.loadCheckpoint(`${ns}:other`)).toBeUndefined();
    });

    it('the first commit from undefined writes its rows and creates the checkpoint', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const changes = [
        delivery(deliveryRow(`${ns}-d1`, r), at(10)),
        run(runRow(`${ns}-r1`, r), at(11)),
        parked(parkedRow(`${ns}-p1`, r), at(12)),
      ];

      expect(await store.commit(`${ns}:projector`, changes, undefined, at(12))).toBe(true);

      expect(await store.loadCheckpoint(`${ns}:projector`)).toEqual(at(12));
      expect(await everything((page) => store.deliveries(r, page))).toEqual([listed(deliveryRow(`${ns}-d1`, r))]);
      expect(await everything((page) => store.runs(r, page))).toEqual([runRow(`${ns}-r1`, r)]);
      expect(await everything((page) => store.parked(r, page))).toEqual([parkedRow(`${ns}-p1`, r)]);
    });

    it('the compare-and-set refuses a stale from (and a second first commit): false, and none of its rows are written', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const name = `${ns}:projector`;
      expect(await store.commit(name, [delivery(deliveryRow(`${ns}-d1`, r), at(10))], undefined, at(10))).toBe(true);

      const stale = [
        delivery(deliveryRow(`${ns}-d2`, r), at(20)),
        run(runRow(`${ns}-r2`, r), at(21)),
        parked(parkedRow(`${ns}-p2`, r), at(22)),
      ];
      expect(await store.commit(name, stale, at(5), at(22))).toBe(false);
      expect(await store.commit(name, stale, at(10, 9), at(22))).toBe(false);
      expect(await store.commit(name, stale, undefined, at(22))).toBe(false);

      expect(await store.loadCheckpoint(name)).toEqual(at(10));
      expect((await everything((page) => store.deliveries(r, page))).map((row) => row.delivery_id)).toEqual([`${ns}-d1`]);
      expect(await everything((page) => store.runs(r, page))).toEqual([]);
      expect(await everything((page) => store.parked(r, page))).toEqual([]);
    });

    it('the compare-and-set refuses a from given for a projection that has no checkpoint yet', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      expect(await store.commit(`${ns}:projector`, [delivery(deliveryRow(`${ns}-d1`, r), at(10))], at(3), at(10))).toBe(false);
      expect(await store.loadCheckpoint(`${ns}:projector`)).toBeUndefined();
      expect(await everything((page) => store.deliveries(r, page))).toEqual([]);
    });

    it.each([
      ['from undefined (both insert the first checkpoint)', false],
      ['from the same checkpoint (both move it)', true],
    ])('two instances committing concurrently %s: exactly one true, only its rows written', async (_label, fromExisting) => {
      const { store, ns, subject } = context();
      const other = await subject.openAnother();
      for (let round = 0; round < 5; round += 1) {
        const name = `${ns}:race-${round}`;
        const r = `${ns}-routine-${round}`;
        const from = fromExisting ? at(100) : undefined;
        if (from) expect(await store.commit(name, [], undefined, from)).toBe(true);
        const mine = [delivery(deliveryRow(`${ns}-mine-${round}`, r), at(200)), run(runRow(`${ns}-mine-run-${round}`, r), at(200))];
        const theirs = [delivery(deliveryRow(`${ns}-theirs-${round}`, r), at(300)), run(runRow(`${ns}-theirs-run-${round}`, r), at(300))];

        const results = await Promise.all([store.commit(name, mine, from, at(200)), other.commit(name, theirs, from, at(300))]);

        expect(results.filter((won) => won)).toHaveLength(1);
        const winner = results[0] ? 'mine' : 'theirs';
        expect(await store.loadCheckpoint(name)).toEqual(results[0] ? at(200) : at(300));
        expect((await everything((page) => store.deliveries(r, page))).map((row) => row.delivery_id)).toEqual([`${ns}-${winner}-${round}`]);
        expect((await everything((page) => other.runs(r, page))).map((row) => row.run_id)).toEqual([`${ns}-${winner}-run-${round}`]);
      }
    });

    it('rows are idempotent: a key committed again (in a later batch or twice in one batch) keeps its first row and position', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const name = `${ns}:projector`;
      const first = deliveryRow(`${ns}-d1`, r, { content_type: 'text/plain' });
      const firstRun = runRow(`${ns}-r1`, r, { status: 'created' });
      const firstParked = parkedRow(`${ns}-p1`, r, { error: 'first' });
      await project(store, name, [
        delivery(first, at(10)),
        delivery({ ...first, content_type: 'application/xml' }, at(11)),
        run(firstRun, at(10)),
        parked(firstParked, at(10)),
      ]);
      await project(store, name, [delivery(deliveryRow(`${ns}-d2`, r), at(15))]);

      await project(store, name, [
        delivery({ ...first, content_type: 'application/json', received_at: '2030-01-01T00:00:00.000Z' }, at(20)),
        run({ ...firstRun, status: 'dispatched' }, at(20)),
        parked({ ...firstParked, error: 'second' }, at(20)),
      ]);

      expect(await everything((page) => store.deliveries(r, page))).toEqual([listed(deliveryRow(`${ns}-d2`, r)), listed(first)]);
      expect(await everything((page) => store.runs(r, page))).toEqual([firstRun]);
      expect(await everything((page) => store.parked(r, page))).toEqual([firstParked]);
      expect(await store.loadCheckpoint(name)).toEqual(at(20));
    });

    it('reset clears every projected row and the checkpoint of that name, but keeps attempts, replays and other checkpoints', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const d1 = deliveryRow(`${ns}-d1`, r);
      await project(store, `${ns}:projector`, [
        delivery(d1, at(10)),
        run(runRow(`${ns}-r1`, r), at(11)),
        parked(parkedRow(`${ns}-p1`, r), at(12)),
      ]);
      await project(store, `${ns}:other`, [], at(7));
      await store.recordReplays([d1.delivery_id, d1.delivery_id]);
      await store.recordAttempts([attemptRow(`${ns}-webhook`, 1)], 10);

      await store.reset(`${ns}:projector`);

      expect(await store.loadCheckpoint(`${ns}:projector`)).toBeUndefined();
      expect(await store.loadCheckpoint(`${ns}:other`)).toEqual(at(7));
      expect(await everything((page) => store.deliveries(r, page))).toEqual([]);
      expect(await everything((page) => store.runs(r, page))).toEqual([]);
      expect(await everything((page) => store.parked(r, page))).toEqual([]);
      expect((await everything((page) => store.parked(undefined, page))).filter((row) => row.source_event_id.startsWith(ns))).toEqual([]);
      expect(await everything((page) => store.attempts(`${ns}-webhook`, page))).toEqual([attemptRow(`${ns}-webhook`, 1)]);

      // The rebuild starts from undefined again and finds the replay count waiting.
      expect(await store.commit(`${ns}:projector`, [delivery(d1, at(10))], undefined, at(10))).toBe(true);
      expect(await everything((page) => store.deliveries(r, page))).toEqual([listed(d1, 2)]);
    });
  });
}
