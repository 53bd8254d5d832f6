/// <reference types="jest" />
import { InvalidCursorError, type AuditRow } from '../read-model.port';
import {
  at,
  attemptRow,
  audit,
  auditRow,
  delivery,
  deliveryRow,
  deniedRow,
  LOOSE_RETENTION as LOOSE,
  project,
  walk,
  type Context,
  asCursor,
  malformedCursors,
} from './contract.fixtures';

/** Newest first as the port orders it: at descending, then entry id descending (byte order; ids here are ASCII). */
function newestFirst(rows: readonly AuditRow[]): AuditRow[] {
  const desc = (a: string, b: string): number => (a === b ? 0 : a > b ? -1 : 1);
  return [...rows].sort((a, b) => desc(a.at, b.at) || desc(a.entryId, b.entryId));
}

/** The audit trail's pages: every entry once in the port's order, stable under writes, and only its own cursors. */
export function auditPagingContract(context: Context): void {
  describe('audit trail', () => {
    it.each([1, 2, 7])(
      'walking pages of %i yields every entry once, newest first, entries of one instant ordered by id (every filter)',
      async (limit) => {
        const { store, ns } = context();
        const actor = { kind: 'oidc', subject: `${ns}-sub`, display: `Pager ${ns}`, displayVerified: true } as const;
        const routine = `${ns}-rtn`;
        // 24 entries over 5 instants (ties broken by entry id), written out of order, projected and denied mixed.
        const rows = Array.from({ length: 24 }, (_, i) => {
          const n = (i * 7) % 24;
          const overrides = { at: `2024-05-01T12:00:0${n % 5}.000Z`, actor, routineId: routine };
          const id = `${ns}-e${String.fromCharCode(97 + ((n * 5) % 24))}`;
          return n % 4 === 0 ? deniedRow(id, overrides) : auditRow(id, overrides);
        });
        const projected = rows.filter((row) => row.outcome === 'succeeded');
        await project(
          store,
          `${ns}:projector`,
          projected.map((row, i) => audit(row, at(i + 1))),
        );
        await store.recordDeniedAccess(
          rows.filter((row) => row.outcome === 'denied'),
          LOOSE,
        );
        const expected = newestFirst(rows);

        for (const filter of [
          { routineId: routine },
          { actor: actor.subject },
          { actor: actor.display.toLowerCase() },
          { routineId: routine, actor: actor.subject },
        ]) {
          expect(await walk((page) => store.audit(filter, page), limit)).toEqual(expected);
        }
        const overall = await walk((page) => store.audit({}, page), Math.max(limit, 50));
        expect(overall.filter((row) => row.entryId.startsWith(ns))).toEqual(expected);
        expect(overall).toEqual(newestFirst(overall));
      },
      30_000,
    );

    it('entries written between page fetches do not appear in later pages, and none is skipped or repeated', async () => {
      const { store, ns } = context();
      const routine = `${ns}-rtn`;
      const rows = Array.from({ length: 9 }, (_, i) =>
        auditRow(`${ns}-e${i}`, { at: `2024-05-01T12:00:0${i % 3}.000Z`, routineId: routine }),
      );
      await project(
        store,
        `${ns}:projector`,
        rows.map((row, i) => audit(row, at(i + 1))),
      );
      let newer = 0;
      const insertNewer = async (): Promise<void> => {
        newer += 1;
        await project(store, `${ns}:projector`, [
          audit(auditRow(`${ns}-new${newer}`, { at: `2030-01-01T00:00:0${newer}.000Z`, routineId: routine }), at(100 + newer)),
        ]);
      };

      expect(await walk((page) => store.audit({ routineId: routine }, page), 2, insertNewer)).toEqual(newestFirst(rows));
      expect(newer).toBeGreaterThan(0);
    });

    it("rejects malformed, tampered and other listings' cursors with InvalidCursorError, and a bad limit with RangeError", async () => {
      const { store, ns } = context();
      const routine = `${ns}-rtn`;
      await project(store, `${ns}:projector`, [
        audit(auditRow(`${ns}-e1`, { routineId: routine }), at(1)),
        audit(auditRow(`${ns}-e2`, { routineId: routine }), at(2)),
        delivery(deliveryRow(`${ns}-d1`, routine), at(3)),
        delivery(deliveryRow(`${ns}-d2`, routine), at(4)),
      ]);
      await store.recordAttempts([attemptRow(`${ns}-w`, 1), attemptRow(`${ns}-w`, 2)], 10);
      const auditCursor = (await store.audit({ routineId: routine }, { limit: 1 })).nextCursor;
      const deliveriesCursor = (await store.deliveries(routine, { limit: 1 })).nextCursor;
      const attemptsCursor = (await store.attempts(`${ns}-w`, { limit: 1 })).nextCursor;
      expect([auditCursor, deliveriesCursor, attemptsCursor]).toEqual([expect.any(String), expect.any(String), expect.any(String)]);
      const invalid = [
        ...malformedCursors(auditCursor as string, 2_000),
        asCursor('["e","2024-05-01T12:00:00.000Z"]'),
        asCursor('["p","2024-05-01T12:00:00.000Z","id"]'),
        asCursor('["e",1,"id"]'),
        asCursor('["e","2024-05-01T12:00:00.000Z",null]'),
        asCursor('[ "e","2024-05-01T12:00:00.000Z","id"]'),
        asCursor('["e","2024-05-01T12:00:00.000Z","id"] '),
        asCursor('{"e":1}'),
        asCursor('e.2024.id'),
        deliveriesCursor as string,
        attemptsCursor as string,
      ];
      for (const filter of [{}, { routineId: routine }, { actor: 'someone' }]) {
        for (const cursor of invalid) {
          await expect(store.audit(filter, { limit: 10, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
        }
      }
      await expect(store.deliveries(routine, { limit: 10, cursor: auditCursor as string })).rejects.toBeInstanceOf(InvalidCursorError);
      await expect(store.attempts(`${ns}-w`, { limit: 10, cursor: auditCursor as string })).rejects.toBeInstanceOf(InvalidCursorError);
      // The cursor it issued goes on after its place: the routine's other entry.
      expect((await store.audit({ routineId: routine }, { limit: 10, cursor: auditCursor as string })).items).toEqual([
        auditRow(`${ns}-e1`, { routineId: routine }),
      ]);
      // A well-formed place no row has is still a place in the order (parameters, never SQL).
      const place = asCursor(JSON.stringify(['e', '2024-05-01T12:00:00.000Z', `${ns}-e2' OR '1'='1`]));
      expect((await store.audit({ routineId: routine }, { limit: 10, cursor: place })).items.map((row) => row.entryId)).toEqual([
        `${ns}-e2`,
        `${ns}-e1`,
      ]);
      for (const limit of [0, 1001, -1, 1.5, Number.NaN]) {
        await expect(store.audit({}, { limit })).rejects.toBeInstanceOf(RangeError);
      }
    });
  });
}
