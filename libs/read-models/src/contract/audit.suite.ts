/// <reference types="jest" />
import type { AuditFilter, AuditRow, ReadModelStore } from '../read-model.port';
import {
  at,
  audit,
  auditRow,
  delivery,
  deliveryRow,
  deniedRow,
  everything,
  LOOSE_RETENTION as LOOSE,
  project,
  webhookRoutine,
  type Context,
} from './contract.fixtures';

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

/** The audit trail: projected entries, the webhook -> routine mapping, denied attempts and filters (pages: audit-paging.suite). */
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
