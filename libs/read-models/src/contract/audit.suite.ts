/// <reference types="jest" />
import { InvalidCursorError, type AuditFilter, type AuditRow, type ReadModelStore } from '../read-model.port';
import {
  at,
  attemptRow,
  audit,
  auditRow,
  delivery,
  deliveryRow,
  deniedRow,
  everything,
  project,
  walk,
  webhookRoutine,
  type Context,
} from './contract.fixtures';

/** Bounds no test here reaches: the retention itself is tested in denied-access.suite. */
const LOOSE = { perSource: 1_000, overall: 100_000 } as const;

/** Newest first as the port orders it: at descending, then entry id descending (byte order; ids here are ASCII). */
function newestFirst(rows: readonly AuditRow[]): AuditRow[] {
  const desc = (a: string, b: string): number => (a === b ? 0 : a > b ? -1 : 1);
  return [...rows].sort((a, b) => desc(a.at, b.at) || desc(a.entryId, b.entryId));
}

function listAll(store: ReadModelStore, filter: AuditFilter): Promise<AuditRow[]> {
  return everything((page) => store.audit(filter, page));
}

/** The entries of this test only, from the unfiltered listing (the database is shared by the suite's tests). */
async function mine(store: ReadModelStore, ns: string): Promise<AuditRow[]> {
  return (await listAll(store, {})).filter((row) => row.entryId.startsWith(ns));
}

async function routineOf(store: ReadModelStore, ns: string, entryId: string): Promise<string | null | undefined> {
  return (await mine(store, ns)).find((row) => row.entryId === entryId)?.routineId;
}

/** The audit trail: projected entries, the webhook -> routine mapping, denied attempts, filters and pages. */
export function auditContract(context: Context): void {
  describe('audit trail', () => {
    it('returns projected entries exactly as written, with an actor and without one (a 401, or an event that predates actors)', async () => {
      const { store, ns } = context();
      const withActor = auditRow(`${ns}-e1`, {
        at: '2024-05-01T12:00:01.000Z',
        actor: { kind: 'api_key', subject: `${ns}-key_1`, display: `CI bot ünïcödé 'quoted' 100%_ ${ns}`, displayVerified: true },
        action: 'webhook.block',
        targetType: 'webhook',
        targetId: `${ns}-whk`,
        routineId: `${ns}-rtn`,
        webhookId: `${ns}-whk`,
        detail: `reason: "abuse"; DROP TABLE rm_audit_entries; -- ${'x'.repeat(2_000)}`,
      });
      const withoutActor = auditRow(`${ns}-e2`, {
        at: '2024-05-01T12:00:02.000Z',
        actor: null,
        action: 'account.set_primary',
        targetType: 'account',
        targetId: null,
        routineId: null,
        webhookId: null,
        traceId: null,
      });
      await project(store, `${ns}:projector`, [audit(withActor, at(1)), audit(withoutActor, at(2))]);

      expect(await mine(store, ns)).toEqual([withoutActor, withActor]);
    });

    it('an entry id written again (later batch, same batch, or as a denied entry) keeps its first row', async () => {
      const { store, ns } = context();
      const first = auditRow(`${ns}-e1`, { routineId: `${ns}-rtn`, detail: 'first' });
      await project(store, `${ns}:projector`, [audit(first, at(1)), audit({ ...first, detail: 'same batch' }, at(2))]);
      await project(store, `${ns}:projector`, [audit({ ...first, action: 'routine.create', detail: 'later batch' }, at(3))]);
      await store.recordDeniedAccess([deniedRow(first.entryId, { detail: 'denied' })], LOOSE);

      expect(await listAll(store, { routineId: `${ns}-rtn` })).toEqual([first]);
    });

    it("fills a webhook entry's routine from the mapping (earlier batch or earlier in the same batch), in the batch's order", async () => {
      const { store, ns } = context();
      const [w1, w2, w3, r1, r2, r3] = [`${ns}-w1`, `${ns}-w2`, `${ns}-w3`, `${ns}-r1`, `${ns}-r2`, `${ns}-r3`];
      const onWebhook = (id: string, webhookId: string, routineId: string | null = null): AuditRow =>
        auditRow(`${ns}-${id}`, { action: 'webhook.rotate', targetType: 'webhook', targetId: webhookId, webhookId, routineId });
      const name = `${ns}:projector`;
      await project(store, name, [webhookRoutine(w1, r1, at(1))]);
      await project(store, name, [audit(onWebhook('e1', w1), at(2))]);
      // One batch: the mapping of w2 comes before its entry; e3 comes before w3's mapping, e4 after it.
      await project(store, name, [
        delivery(deliveryRow(`${ns}-d1`, r2), at(3)),
        webhookRoutine(w2, r2, at(4)),
        audit(onWebhook('e2', w2), at(4)),
        audit(onWebhook('e3', w3), at(5)),
        webhookRoutine(w3, r3, at(6)),
        audit(onWebhook('e4', w3), at(7)),
        // A routine given explicitly is kept; an unknown webhook has none.
        audit(onWebhook('e5', w1, `${ns}-explicit`), at(8)),
        audit(onWebhook('e6', `${ns}-unknown`), at(9)),
        // A webhook's routine never changes: a second mapping of w1 is ignored.
        webhookRoutine(w1, `${ns}-other`, at(10)),
        audit(onWebhook('e7', w1), at(11)),
      ]);
      // Denied attempts on a webhook are resolved the same way.
      await store.recordDeniedAccess([deniedRow(`${ns}-e8`, { targetType: 'webhook', targetId: w2, webhookId: w2 })], LOOSE);

      const routines = Object.fromEntries((await mine(store, ns)).map((row) => [row.entryId.slice(ns.length + 1), row.routineId]));
      expect(routines).toEqual({ e1: r1, e2: r2, e3: null, e4: r3, e5: `${ns}-explicit`, e6: null, e7: r1, e8: r2 });
      expect((await listAll(store, { routineId: r1 })).map((row) => row.entryId)).toEqual([`${ns}-e7`, `${ns}-e1`]);
    });

    it('filters by routine, by actor (subject exactly, display case-insensitively), or both; patterns are data', async () => {
      const { store, ns } = context();
      const alice = { kind: 'oidc', subject: `${ns}-sub-alice`, display: `Alice Example ${ns}`, displayVerified: true } as const;
      const bot = { kind: 'api_key', subject: `${ns}-key`, display: `CI Bot ${ns}`, displayVerified: true } as const;
      // Subject and display alike (listed once when both match).
      const boot = { kind: 'bootstrap', subject: `${ns}-boot`, display: `${ns}-boot`, displayVerified: true } as const;
      const [r1, r2] = [`${ns}-r1`, `${ns}-r2`];
      const rows = [
        auditRow(`${ns}-e1`, { at: '2024-05-01T12:00:01.000Z', actor: alice, routineId: r1 }),
        auditRow(`${ns}-e2`, { at: '2024-05-01T12:00:02.000Z', actor: bot, routineId: r1 }),
        auditRow(`${ns}-e3`, { at: '2024-05-01T12:00:03.000Z', actor: alice, routineId: r2 }),
        auditRow(`${ns}-e4`, { at: '2024-05-01T12:00:04.000Z', actor: null, routineId: r2 }),
        auditRow(`${ns}-e5`, { at: '2024-05-01T12:00:05.000Z', actor: boot, routineId: r2 }),
      ];
      await project(
        store,
        `${ns}:projector`,
        rows.map((row, i) => audit(row, at(i + 1))),
      );
      await store.recordDeniedAccess([deniedRow(`${ns}-e6`, { at: '2024-05-01T12:00:06.000Z', actor: alice })], LOOSE);
      const ids = async (filter: AuditFilter): Promise<string[]> =>
        (await listAll(store, filter)).map((row) => row.entryId.slice(ns.length + 1));

      expect(await ids({ routineId: r1 })).toEqual(['e2', 'e1']);
      expect(await ids({ routineId: r2 })).toEqual(['e5', 'e4', 'e3']);
      expect(await ids({ actor: alice.subject })).toEqual(['e6', 'e3', 'e1']);
      expect(await ids({ actor: `ALICE example ${ns.toUpperCase()}` })).toEqual(['e6', 'e3', 'e1']);
      expect(await ids({ actor: bot.display })).toEqual(['e2']);
      expect(await ids({ actor: boot.subject })).toEqual(['e5']);
      expect(await ids({ actor: alice.subject, routineId: r2 })).toEqual(['e3']);
      expect(await ids({ actor: bot.subject, routineId: r2 })).toEqual([]);
      // The subject is exact: another case, a prefix or a pattern matches nothing.
      expect(await ids({ actor: alice.subject.toUpperCase() })).toEqual([]);
      expect(await ids({ actor: `${ns}-sub` })).toEqual([]);
      expect(await ids({ actor: `${ns}%` })).toEqual([]);
      expect(await ids({ actor: `Alice Example _${ns.slice(1)}` })).toEqual([]);
      expect(await ids({ routineId: `${ns}-r%` })).toEqual([]);
    });

    it("by actor, a display that was not verified matches nothing (someone else's email typed as one's own); the subject does", async () => {
      const { store, ns } = context();
      const victim = `ceo-${ns}@example.com`;
      // The real owner of the address (verified), a forger whose provider did not verify it (a
      // projected write and a denied attempt), and a username that looks like it (never verified).
      const owner = { kind: 'oidc', subject: `${ns}-sub-ceo`, display: victim, displayVerified: true } as const;
      const forger = { kind: 'oidc', subject: `${ns}-sub-mallory`, display: victim, displayVerified: false } as const;
      const lookalike = { kind: 'oidc', subject: `${ns}-sub-lookalike`, display: victim.toUpperCase(), displayVerified: false } as const;
      await project(store, `${ns}:projector`, [
        audit(auditRow(`${ns}-e1`, { at: '2024-05-01T12:00:01.000Z', actor: owner }), at(1)),
        audit(auditRow(`${ns}-e2`, { at: '2024-05-01T12:00:02.000Z', actor: forger }), at(2)),
        audit(auditRow(`${ns}-e3`, { at: '2024-05-01T12:00:03.000Z', actor: lookalike }), at(3)),
      ]);
      await store.recordDeniedAccess([deniedRow(`${ns}-e4`, { at: '2024-05-01T12:00:04.000Z', actor: forger })], {
        perSource: 1_000,
        overall: 1_000,
      });
      const ids = async (filter: AuditFilter): Promise<string[]> =>
        (await listAll(store, filter)).map((row) => row.entryId.slice(ns.length + 1));

      expect(await ids({ actor: victim })).toEqual(['e1']);
      expect(await ids({ actor: victim.toUpperCase() })).toEqual(['e1']);
      expect(await ids({ actor: forger.subject })).toEqual(['e4', 'e2']);
      expect(await ids({ actor: lookalike.subject })).toEqual(['e3']);
      // Read back as written: the forger's display is there, marked unverified.
      expect((await mine(store, ns)).map((row) => row.actor)).toEqual([forger, lookalike, forger, owner]);
    });

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
      const b64 = (text: string): string => Buffer.from(text).toString('base64url');
      const invalid = [
        '',
        'garbage',
        '!!!!',
        'x'.repeat(2_000),
        `${auditCursor}=`,
        `${auditCursor}.`,
        b64('["e","2024-05-01T12:00:00.000Z"]'),
        b64('["p","2024-05-01T12:00:00.000Z","id"]'),
        b64('["e",1,"id"]'),
        b64('["e","2024-05-01T12:00:00.000Z",null]'),
        b64('[ "e","2024-05-01T12:00:00.000Z","id"]'),
        b64('["e","2024-05-01T12:00:00.000Z","id"] '),
        b64('{"e":1}'),
        b64('e.2024.id'),
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
      const place = b64(JSON.stringify(['e', '2024-05-01T12:00:00.000Z', `${ns}-e2' OR '1'='1`]));
      expect((await store.audit({ routineId: routine }, { limit: 10, cursor: place })).items.map((row) => row.entryId)).toEqual([
        `${ns}-e2`,
        `${ns}-e1`,
      ]);
      for (const limit of [0, 1001, -1, 1.5, Number.NaN]) {
        await expect(store.audit({}, { limit })).rejects.toBeInstanceOf(RangeError);
      }
    });

    it('reset deletes projected entries and webhook mappings, keeps denied entries; a rebuild fills them again', async () => {
      const { store, ns } = context();
      const name = `${ns}:projector`;
      const [w, r] = [`${ns}-w`, `${ns}-r`];
      const rotate = auditRow(`${ns}-e2`, { action: 'webhook.rotate', targetType: 'webhook', targetId: w, webhookId: w, routineId: null });
      const kept = deniedRow(`${ns}-denied`, { at: '2999-12-31T23:59:59.000Z' });
      await project(store, name, [webhookRoutine(w, r, at(1)), audit(auditRow(`${ns}-e1`), at(1)), audit(rotate, at(2))]);
      await store.recordDeniedAccess([kept], LOOSE);
      expect((await mine(store, ns)).map((row) => [row.entryId, row.routineId])).toEqual([
        [kept.entryId, null],
        [`${ns}-e2`, r],
        [`${ns}-e1`, 'rtn_default'],
      ]);

      await store.reset(name);

      expect(await mine(store, ns)).toEqual([kept]);
      expect((await listAll(store, {})).filter((row) => row.outcome === 'succeeded')).toEqual([]);
      // Without its mapping (reset), an entry naming only its webhook has no routine...
      expect(await store.commit(name, [audit(rotate, at(2))], undefined, at(2))).toBe(true);
      expect(await routineOf(store, ns, rotate.entryId)).toBeNull();
      // ...and a rebuild from the start projects the mapping before it again.
      await store.reset(name);
      await project(store, name, [webhookRoutine(w, r, at(1)), audit(rotate, at(2))]);
      expect(await routineOf(store, ns, rotate.entryId)).toBe(r);
      expect(await routineOf(store, ns, kept.entryId)).toBeNull();
    });

    it('a commit whose checkpoint is stale writes no audit entry and no mapping', async () => {
      const { store, ns } = context();
      const name = `${ns}:projector`;
      const [w, r] = [`${ns}-w`, `${ns}-r`];
      await project(store, name, [audit(auditRow(`${ns}-e1`), at(10))]);

      const stale = [webhookRoutine(w, r, at(20)), audit(auditRow(`${ns}-e2`, { routineId: null, webhookId: w }), at(21))];
      expect(await store.commit(name, stale, at(5), at(21))).toBe(false);
      expect(await store.commit(name, stale, undefined, at(21))).toBe(false);

      expect((await mine(store, ns)).map((row) => row.entryId)).toEqual([`${ns}-e1`]);
      expect(await store.loadCheckpoint(name)).toEqual(at(10));
      // The mapping was not written either: a later entry of that webhook finds no routine.
      await project(store, name, [audit(auditRow(`${ns}-e3`, { routineId: null, webhookId: w }), at(30))]);
      expect(await routineOf(store, ns, `${ns}-e3`)).toBeNull();
    });
  });
}
