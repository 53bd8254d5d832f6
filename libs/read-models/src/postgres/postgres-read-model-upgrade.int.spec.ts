import { LEGACY_AUDIT_ACTORS, LEGACY_AUDIT_ROWS, VERSION_5_DELIVERIES } from '../contract/contract.fixtures';
import type { ReadModelStore } from '../read-model.port';
import { PostgresReadModelStore, type PostgresReadModelStoreOptions } from './postgres-read-model.store';
import {
  DATABASE_URL,
  dropSchemasAfterAll,
  schemaAtVersion,
  uniqueSchema,
  whenPostgresReachable,
  withAdmin,
} from './testing/postgres-read-model.fixtures';

/**
 * PostgresReadModelStore and the schema versions of its tables: a schema an older build left is
 * upgraded in place (its rows and checkpoint kept, what later migrations add filled in as those
 * builds meant), concurrent first starts migrate once, and a bad schema name is refused.
 */
const schemas: string[] = [];
const opened: ReadModelStore[] = [];

async function openStore(options: Partial<PostgresReadModelStoreOptions> & { schema: string }): Promise<PostgresReadModelStore> {
  const store = await PostgresReadModelStore.open({ connectionString: DATABASE_URL, poolSize: 4, ...options });
  opened.push(store);
  return store;
}

whenPostgresReachable(() => {
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  dropSchemasAfterAll(schemas);

  describe('PostgresReadModelStore (PostgreSQL schema versions)', () => {
    it('creates its schema and tables, records the migration once, and survives concurrent first starts', async () => {
      const schema = uniqueSchema();
      schemas.push(schema);

      await Promise.all(Array.from({ length: 5 }, () => openStore({ schema })));

      const versions = await withAdmin((client) => client.query(`SELECT version FROM "${schema}".rm_schema_migrations`));
      expect(versions.rows).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
        { version: 5 },
        { version: 6 },
        { version: 7 },
      ]);
    });

    it('upgrades a schema of version 1 in place: its rows and checkpoint kept, the audit trail added', async () => {
      // The schema as the previous build left it: only the first migration, with a delivery and a checkpoint.
      const schema = await schemaAtVersion(
        schemas,
        1,
        `INSERT INTO rm_deliveries VALUES ('d1', 'r1', 'w1', 'run1', '2024-05-01T12:00:00.000Z', 'a1', 'a@example.com', 'text/plain', NULL, 5, 5)`,
        `INSERT INTO rm_checkpoints VALUES ('read-models', 5, 5)`,
      );

      const store = await openStore({ schema });

      expect(await store.loadCheckpoint('read-models')).toEqual({ commit: 5n, prepare: 5n });
      expect((await store.deliveries('r1', { limit: 10 })).items.map((row) => row.deliveryId)).toEqual(['d1']);
      const mapping = {
        kind: 'webhook_routine',
        position: { commit: 6n, prepare: 6n },
        row: { webhookId: 'w1', routineId: 'r1' },
      } as const;
      const entry = {
        entryId: 'e1',
        at: '2024-05-01T12:00:01.000Z',
        actor: null,
        action: 'webhook.rotate',
        targetType: 'webhook',
        targetId: 'w1',
        routineId: null,
        webhookId: 'w1',
        outcome: 'succeeded',
        traceId: null,
        detail: null,
        sourceAddress: null,
      } as const;
      const to = { commit: 7n, prepare: 7n };
      expect(
        await store.commit('read-models', [mapping, { kind: 'audit', position: to, row: entry }], { commit: 5n, prepare: 5n }, to),
      ).toBe(true);
      expect((await store.audit({ routineId: 'r1' }, { limit: 10 })).items).toEqual([{ ...entry, routineId: 'r1' }]);
      const versions = await withAdmin((client) => client.query(`SELECT version FROM "${schema}".rm_schema_migrations ORDER BY version`));
      expect(versions.rows).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
        { version: 5 },
        { version: 6 },
        { version: 7 },
      ]);
    });

    it("upgrades a schema of version 3: the audit trail's OIDC displays count as unverified, keys' names and the bootstrap's as verified", async () => {
      const schema = await schemaAtVersion(schemas, 3, LEGACY_AUDIT_ROWS);

      const store = await openStore({ schema });

      expect(await store.audit({ actor: 'ceo@example.com' }, { limit: 10 })).toMatchObject({ items: [] });
      expect((await store.audit({ actor: 'sub-mallory' }, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['e1']);
      expect((await store.audit({ actor: 'ci bot' }, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['e2']);
      expect((await store.audit({}, { limit: 10 })).items.map((row) => row.actor)).toEqual(LEGACY_AUDIT_ACTORS);
    });

    it.each(['Public', 'a-b', 'x;drop', '1abc', '', 'a'.repeat(64)])('refuses the schema name %j with RangeError', async (schema) => {
      await expect(PostgresReadModelStore.open({ connectionString: DATABASE_URL, schema })).rejects.toBeInstanceOf(RangeError);
    });

    it("upgrades a schema of version 5: its deliveries' payloads kept, never expiring, and found by their trigger account in any case", async () => {
      const schema = await schemaAtVersion(schemas, 5, VERSION_5_DELIVERIES);

      const store = await openStore({ schema });

      const listed = (await store.deliveries('r1', { limit: 10 })).items;
      expect(listed.map((row) => [row.deliveryId, row.payloadState, row.payloadExpiresAt, row.payloadRemovedAt])).toEqual([
        ['d2', 'kept', null, null],
        ['d1', 'kept', null, null],
      ]);
      expect(await store.erasureCandidates({ triggerAccount: 'ALICE@example.com' }, null, 10)).toEqual({ deliveryIds: ['d1'], next: null });
      expect(await store.payloadsDue(new Date('2999-01-01T00:00:00.000Z'), 10)).toEqual([]);
    });
  });
});
