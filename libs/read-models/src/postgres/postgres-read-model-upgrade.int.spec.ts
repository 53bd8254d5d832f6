import { LEGACY_AUDIT_ACTORS, LEGACY_AUDIT_ROWS, VERSION_5_DELIVERIES } from '../contract/contract.fixtures';
import { PostgresReadModelStore } from './postgres-read-model.store';
import {
  DATABASE_URL,
  dropSchemasAfterAll,
  schemaAtVersion,
  uniqueSchema,
  whenPostgresReachable,
  withAdmin,
} from './testing/postgres-read-model.fixtures';
import { useOpenedPostgresStores } from '../../../../test/support/postgres-read-model.kit';
import { expectUpgradedFromVersion1 } from '../../../../test/support/read-model-upgrade.assertions';

/**
 * PostgresReadModelStore and the schema versions of its tables: a schema an older build left is
 * upgraded in place (its rows and checkpoint kept, what later migrations add filled in as those
 * builds meant), concurrent first starts migrate once, and a bad schema name is refused.
 */
const schemas: string[] = [];
/** Every migration, in order: what a schema of this build records. */
const EVERY_VERSION = [1, 2, 3, 4, 5, 6, 7, 8].map((version) => ({ version }));

whenPostgresReachable(() => {
  const openStore = useOpenedPostgresStores();

  dropSchemasAfterAll(schemas);

  describe('PostgresReadModelStore (PostgreSQL schema versions)', () => {
    it('creates its schema and tables, records the migration once, and survives concurrent first starts', async () => {
      const schema = uniqueSchema();
      schemas.push(schema);

      await Promise.all(Array.from({ length: 5 }, () => openStore({ schema })));

      const versions = await withAdmin((client) => client.query(`SELECT version FROM "${schema}".rm_schema_migrations`));
      expect(versions.rows).toEqual(EVERY_VERSION);
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

      await expectUpgradedFromVersion1(store);
      const versions = await withAdmin((client) => client.query(`SELECT version FROM "${schema}".rm_schema_migrations ORDER BY version`));
      expect(versions.rows).toEqual(EVERY_VERSION);
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
      expect(listed.map((row) => [row.delivery_id, row.payload_state, row.payload_expires_at, row.payload_removed_at])).toEqual([
        ['d2', 'kept', null, null],
        ['d1', 'kept', null, null],
      ]);
      expect(await store.erasureCandidates({ triggerAccount: 'ALICE@example.com' }, null, 10)).toEqual({
        deliveryIds: ['d1'],
        scanned: 2,
        next: null,
      });
      expect(await store.payloadsDue(new Date('2999-01-01T00:00:00.000Z'), 10)).toEqual([]);
    });
  });
});
