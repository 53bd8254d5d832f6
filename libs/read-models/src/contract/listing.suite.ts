/// <reference types="jest" />
import type { GlobalPosition } from '@wts/event-store';
import { InvalidCursorError, type ProjectionChange, type ReadModelStore } from '../read-model.port';
import {
  at,
  attemptRow,
  delivery,
  deliveryRow,
  everything,
  newestFirst,
  parked,
  parkedRow,
  project,
  run,
  runRow,
  walk,
  type Context,
  type Listing,
  asCursor,
  malformedCursors,
} from './contract.fixtures';

/** 25 positions, several sharing a commit (told apart by prepare), deliberately not in order. */
function scrambledPositions(base: bigint, count: number): GlobalPosition[] {
  const positions = Array.from({ length: count }, (_, i) => at(base + BigInt(1_000 + Math.floor(i / 3) * 10), (i % 3) * 7 + 1));
  return positions.map((_, i) => positions[(i * 7) % count] as GlobalPosition);
}

interface Projected {
  readonly routine: string;
  readonly changes: ProjectionChange[];
}

/** One delivery, one run and one parked row per position, for one routine. */
async function projectMany(store: ReadModelStore, ns: string, base: bigint, count: number): Promise<Projected> {
  const routine = `${ns}-routine`;
  const changes = scrambledPositions(base, count).flatMap((position, i) => [
    delivery(deliveryRow(`${ns}-d${i}`, routine), position),
    run(runRow(`${ns}-r${i}`, routine), position),
    parked(parkedRow(`${ns}-p${i}`, routine), position),
  ]);
  await project(store, `${ns}:projector`, changes);
  return { routine, changes };
}

function expectedIds(changes: readonly ProjectionChange[], kind: ProjectionChange['kind']): string[] {
  return changes
    .filter((change) => change.kind === kind)
    .sort(newestFirst)
    .map((change) => {
      if (change.kind === 'delivery') return change.row.delivery_id;
      if (change.kind === 'run') return change.row.run_id;
      if (change.kind === 'parked') return change.row.source_event_id;
      throw new Error(`no listing by position for ${change.kind}`);
    });
}

export function listingContract(context: Context): void {
  describe('listings and pagination', () => {
    it('lists newest first by position: commit descending, then prepare descending (bigints beyond 2^53 kept apart)', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      const big = 2n ** 60n;
      const positions = [at(5, 1), at(5, 3), at(5, 2), at(big + 1n, 0), at(big + 2n, 0), at(big + 2n, 1), at(7, 0)];
      await project(
        store,
        `${ns}:projector`,
        positions.map((position, i) => delivery(deliveryRow(`${ns}-d${i}`, r), position)),
      );

      const ids = (await everything((page) => store.deliveries(r, page))).map((row) => row.delivery_id);

      expect(ids).toEqual([5, 4, 3, 6, 1, 2, 0].map((i) => `${ns}-d${i}`));
    });

    it.each([1, 2, 7])(
      'walking every page with limit %i yields every row exactly once, in order (deliveries, runs, parked, parked of all)',
      async (limit) => {
        const { store, ns, base } = context();
        const { routine, changes } = await projectMany(store, ns, base, 25);

        expect((await walk((page) => store.deliveries(routine, page), limit)).map((row) => row.delivery_id)).toEqual(
          expectedIds(changes, 'delivery'),
        );
        expect((await walk((page) => store.runs(routine, page), limit)).map((row) => row.run_id)).toEqual(expectedIds(changes, 'run'));
        expect((await walk((page) => store.parked(routine, page), limit)).map((row) => row.source_event_id)).toEqual(
          expectedIds(changes, 'parked'),
        );
        const allParked = (await walk((page) => store.parked(undefined, page), limit)).map((row) => row.source_event_id);
        expect(allParked.filter((id) => id.startsWith(ns))).toEqual(expectedIds(changes, 'parked'));
      },
    );

    it.each([1, 2, 7])('walking attempts with limit %i yields every attempt exactly once, newest first', async (limit) => {
      const { store, ns } = context();
      const webhook = `${ns}-webhook`;
      const attempts = Array.from({ length: 25 }, (_, n) => attemptRow(webhook, n));
      await store.recordAttempts(attempts.slice(0, 10), 100);
      await store.recordAttempts(attempts.slice(10), 100);

      expect(await walk((page) => store.attempts(webhook, page), limit)).toEqual([...attempts].reverse());
    });

    it.each([1, 2, 7])(
      'rows inserted between page fetches (limit %i) do not appear in later pages, and none is skipped or repeated',
      async (limit) => {
        const { store, ns, base } = context();
        const { routine, changes } = await projectMany(store, ns, base, 25);
        const webhook = `${ns}-webhook`;
        const attempts = Array.from({ length: 25 }, (_, n) => attemptRow(webhook, n));
        await store.recordAttempts(attempts, 100);
        let newer = 0;
        const insertNewer = async (): Promise<void> => {
          newer += 1;
          const position = at(base + BigInt(1_000_000 + newer));
          await project(store, `${ns}:projector`, [
            delivery(deliveryRow(`${ns}-new-d${newer}`, routine), position),
            run(runRow(`${ns}-new-r${newer}`, routine), position),
            parked(parkedRow(`${ns}-new-p${newer}`, routine), position),
          ]);
          await store.recordAttempts([attemptRow(webhook, 100 + newer)], 1000);
        };

        // Each walk must return exactly what was there when it started (earlier walks added newer rows).
        const unchanged = async <T>(list: Listing<T>): Promise<T[]> => {
          const before = await everything(list);
          expect(await walk(list, limit, insertNewer)).toEqual(before);
          return before;
        };
        expect((await unchanged((page) => store.deliveries(routine, page))).map((row) => row.delivery_id)).toEqual(
          expectedIds(changes, 'delivery'),
        );
        expect((await unchanged((page) => store.runs(routine, page))).map((row) => row.run_id).slice(-25)).toEqual(
          expectedIds(changes, 'run'),
        );
        expect((await unchanged((page) => store.parked(routine, page))).map((row) => row.source_event_id).slice(-25)).toEqual(
          expectedIds(changes, 'parked'),
        );
        expect((await unchanged((page) => store.attempts(webhook, page))).slice(-25)).toEqual([...attempts].reverse());
        expect(newer).toBeGreaterThan(0);
        // A commit per page at limit 1 (about a hundred): seconds on PostgreSQL with fsync, more on a loaded machine.
      },
      30_000,
    );

    it('rejects malformed, tampered and wrong-kind cursors with InvalidCursorError (an attempts cursor on deliveries and back)', async () => {
      const { store, ns } = context();
      const r = `${ns}-routine`;
      await project(store, `${ns}:projector`, [delivery(deliveryRow(`${ns}-d1`, r), at(1)), delivery(deliveryRow(`${ns}-d2`, r), at(2))]);
      await store.recordAttempts([attemptRow(`${ns}-w`, 1), attemptRow(`${ns}-w`, 2)], 10);
      const deliveriesCursor = (await store.deliveries(r, { limit: 1 })).nextCursor;
      const attemptsCursor = (await store.attempts(`${ns}-w`, { limit: 1 })).nextCursor;
      expect(deliveriesCursor).toEqual(expect.any(String));
      expect(attemptsCursor).toEqual(expect.any(String));
      const garbage = [
        ...malformedCursors(deliveriesCursor as string, 500),
        asCursor('p.1'),
        asCursor('p.01.2'),
        asCursor('p.-1.2'),
        asCursor('p.1.2 '),
        asCursor('p.99999999999999999999.1'),
        asCursor('x.1.2'),
        asCursor('a.1.2'),
        asCursor("p.1.2' OR 1=1"),
      ];

      const listings: Listing<unknown>[] = [
        (page) => store.deliveries(r, page),
        (page) => store.runs(r, page),
        (page) => store.parked(undefined, page),
        (page) => store.parked(r, page),
      ];
      for (const list of listings) {
        for (const cursor of [...garbage, attemptsCursor as string]) {
          await expect(list({ limit: 10, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
        }
      }
      for (const cursor of [...garbage, asCursor('a.01'), asCursor('a.-3'), deliveriesCursor as string]) {
        await expect(store.attempts(`${ns}-w`, { limit: 10, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
      }
      // A position cursor is only a place in the global order: harmless on another position listing.
      await expect(store.runs(r, { limit: 10, cursor: deliveriesCursor as string })).resolves.toEqual({ items: [], nextCursor: null });
    });

    it('rejects a limit outside 1..1000 (0, 1001, -1, 1.5, NaN) with RangeError on every listing', async () => {
      const { store, ns } = context();
      const calls = [
        (limit: number) => store.deliveries(`${ns}-r`, { limit }),
        (limit: number) => store.runs(`${ns}-r`, { limit }),
        (limit: number) => store.parked(undefined, { limit }),
        (limit: number) => store.parked(`${ns}-r`, { limit }),
        (limit: number) => store.attempts(`${ns}-w`, { limit }),
      ];
      for (const call of calls) {
        for (const limit of [0, 1001, -1, 1.5, Number.NaN]) await expect(call(limit)).rejects.toBeInstanceOf(RangeError);
        expect((await call(1)).items.length).toBeLessThanOrEqual(1);
        expect((await call(1000)).items.length).toBeLessThanOrEqual(1000);
      }
    });

    it('keeps routines apart: deliveries, runs and parked of one routine never list under another (nor under a prefix of its id)', async () => {
      const { store, ns } = context();
      const [a, b] = [`${ns}-routine-1`, `${ns}-routine-10`];
      await project(store, `${ns}:projector`, [
        delivery(deliveryRow(`${ns}-da`, a), at(1)),
        delivery(deliveryRow(`${ns}-db`, b), at(2)),
        run(runRow(`${ns}-ra`, a), at(1)),
        run(runRow(`${ns}-rb`, b), at(2)),
        parked(parkedRow(`${ns}-pa`, a), at(1)),
        parked(parkedRow(`${ns}-pb`, b), at(2)),
      ]);

      for (const [routine, suffix] of [
        [a, 'a'],
        [b, 'b'],
      ] as const) {
        expect((await everything((page) => store.deliveries(routine, page))).map((row) => row.delivery_id)).toEqual([`${ns}-d${suffix}`]);
        expect((await everything((page) => store.runs(routine, page))).map((row) => row.run_id)).toEqual([`${ns}-r${suffix}`]);
        expect((await everything((page) => store.parked(routine, page))).map((row) => row.source_event_id)).toEqual([`${ns}-p${suffix}`]);
      }
      expect(await everything((page) => store.deliveries(`${ns}-routine-`, page))).toEqual([]);
      expect(await everything((page) => store.deliveries(`${ns}-routine-%`, page))).toEqual([]);
    });

    it('parked lists one routine when given one, and every parked row (those without a routine too) when not', async () => {
      const { store, ns, base } = context();
      const [a, b] = [`${ns}-routine-a`, `${ns}-routine-b`];
      const rows = [
        parkedRow(`${ns}-p1`, a),
        parkedRow(`${ns}-p2`, b),
        parkedRow(`${ns}-p3`, null),
        parkedRow(`${ns}-p4`, a),
        parkedRow(`${ns}-p5`, null),
      ];
      await project(
        store,
        `${ns}:projector`,
        rows.map((row, i) => parked(row, at(base + BigInt(50 + i)))),
      );

      expect(await everything((page) => store.parked(a, page))).toEqual([rows[3], rows[0]]);
      expect(await everything((page) => store.parked(b, page))).toEqual([rows[1]]);
      const all = (await everything((page) => store.parked(undefined, page))).filter((row) => row.source_event_id.startsWith(ns));
      expect(all).toEqual([...rows].reverse());
    });
  });
}
