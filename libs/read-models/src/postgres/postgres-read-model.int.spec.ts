import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { eventually } from '@wts/testing';
import { LEGACY_AUDIT_ACTORS, LEGACY_AUDIT_ROWS } from '../contract/contract.fixtures';
import { readModelContract } from '../contract/read-model.suite';
import { ReadModelUnavailableError, type ReadModelStore } from '../read-model.port';
import { schemaLockKey } from './postgres-lock.keys';
import { READ_MODEL_MIGRATIONS } from './postgres-read-model.migrations';
import { PostgresReadModelStore, type PostgresReadModelStoreOptions } from './postgres-read-model.store';
import { startSilentServer, startTcpProxy } from './testing/tcp-proxy';

/**
 * Against the real PostgreSQL of this machine (TEST_DATABASE_URL). The suite works in a schema
 * of its own, created by the store and dropped at the end; the outage cases go through a local
 * TCP relay or a silent socket, never by touching the shared server.
 */
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = uniqueSchema();
const schemas = [SCHEMA];

function uniqueSchema(): string {
  return `rm_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A new schema as an earlier build left it: the first `version` migrations, recorded, then `rows` (SQL) written. */
async function schemaAtVersion(version: number, ...rows: string[]): Promise<string> {
  const schema = uniqueSchema();
  schemas.push(schema);
  await withAdmin(async (client) => {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path = "${schema}"`);
    for (const migration of READ_MODEL_MIGRATIONS.slice(0, version)) await client.query(migration);
    await client.query('CREATE TABLE rm_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (let applied = 1; applied <= version; applied += 1)
      await client.query('INSERT INTO rm_schema_migrations (version) VALUES ($1)', [applied]);
    for (const row of rows) await client.query(row);
  });
  return schema;
}

const opened: ReadModelStore[] = [];

async function openStore(options: Partial<PostgresReadModelStoreOptions> = {}): Promise<PostgresReadModelStore> {
  const store = await PostgresReadModelStore.open({ connectionString: DATABASE_URL, schema: SCHEMA, poolSize: 4, ...options });
  opened.push(store);
  return store;
}

async function elapsed(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { error, ms: performance.now() - started };
}

function viaPort(port: number): string {
  const url = new URL(DATABASE_URL);
  url.host = `127.0.0.1:${port}`;
  return url.toString();
}

/**
 * Checked while the tests are collected (a child process, so it can be synchronous): without a
 * server the suite is one failing test saying so, instead of every test failing in its hooks.
 */
function postgresUnreachable(): string | undefined {
  const probe = `
    const { Client } = require(process.argv[1]);
    const client = new Client({ connectionString: process.argv[2], connectionTimeoutMillis: 3000 });
    client.on('error', () => undefined);
    client.connect().then(() => client.query('SELECT 1')).then(() => client.end()).then(
      () => process.exit(0),
      (error) => { process.stderr.write(String(error.code ?? '') + ' ' + error.message); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', probe, require.resolve('pg'), DATABASE_URL], { encoding: 'utf8', timeout: 10_000 });
  if (result.status === 0) return undefined;
  return (
    `PostgreSQL is not reachable at ${DATABASE_URL} (${result.stderr.trim() || result.error?.message || 'no answer'}), ` +
    'so this suite cannot run: start it (pg_ctlcluster $(ls /etc/postgresql) main start) or set TEST_DATABASE_URL'
  );
}

const unreachable = postgresUnreachable();
if (unreachable !== undefined) {
  it(`PostgreSQL is reachable at ${DATABASE_URL}`, () => {
    throw new Error(unreachable);
  });
} else {
  registerSuites();
}

function registerSuites(): void {
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  afterAll(async () => {
    await withAdmin(async (client) => {
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }).catch(() => undefined);
  });

  readModelContract('PostgresReadModelStore', async () => {
    const store = await openStore();
    return { store, openAnother: () => openStore(), cleanup: async () => undefined };
  });

  describe('PostgresReadModelStore (PostgreSQL specifics)', () => {
    it('creates its schema and tables, records the migration once, and survives concurrent first starts', async () => {
      const schema = uniqueSchema();
      schemas.push(schema);

      await Promise.all(Array.from({ length: 5 }, () => openStore({ schema })));

      const versions = await withAdmin((client) => client.query(`SELECT version FROM "${schema}".rm_schema_migrations`));
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    });

    it('upgrades a schema of version 1 in place: its rows and checkpoint kept, the audit trail added', async () => {
      // The schema as the previous build left it: only the first migration, with a delivery and a checkpoint.
      const schema = await schemaAtVersion(
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
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    });

    it("upgrades a schema of version 3: the audit trail's OIDC displays count as unverified, keys' names and the bootstrap's as verified", async () => {
      const schema = await schemaAtVersion(3, LEGACY_AUDIT_ROWS);

      const store = await openStore({ schema });

      expect(await store.audit({ actor: 'ceo@example.com' }, { limit: 10 })).toMatchObject({ items: [] });
      expect((await store.audit({ actor: 'sub-mallory' }, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['e1']);
      expect((await store.audit({ actor: 'ci bot' }, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['e2']);
      expect((await store.audit({}, { limit: 10 })).items.map((row) => row.actor)).toEqual(LEGACY_AUDIT_ACTORS);
    });

    it.each(['Public', 'a-b', 'x;drop', '1abc', '', 'a'.repeat(64)])('refuses the schema name %j with RangeError', async (schema) => {
      await expect(PostgresReadModelStore.open({ connectionString: DATABASE_URL, schema })).rejects.toBeInstanceOf(RangeError);
    });

    it('grants the projector lease to one instance and refuses it to another until the first closes', async () => {
      const first = await openStore();
      const second = await openStore();

      expect(await first.tryAcquireProjectorLease()).toBe(true);
      expect(await second.tryAcquireProjectorLease()).toBe(false);
      expect(second.holdsProjectorLease()).toBe(false);
      expect(first.holdsProjectorLease()).toBe(true);

      await first.close();
      expect(first.holdsProjectorLease()).toBe(false);
      expect(await second.tryAcquireProjectorLease()).toBe(true);
      expect(second.holdsProjectorLease()).toBe(true);
    });

    it('keeps leases of different schemas apart', async () => {
      const schema = uniqueSchema();
      schemas.push(schema);
      const here = await openStore();
      const elsewhere = await openStore({ schema });

      expect(await here.tryAcquireProjectorLease()).toBe(true);
      expect(await elsewhere.tryAcquireProjectorLease()).toBe(true);
    });

    it('loses the lease when its connection is killed (pg_terminate_backend), and another instance then acquires it', async () => {
      const first = await openStore();
      const second = await openStore();
      expect(await first.tryAcquireProjectorLease()).toBe(true);
      const key = BigInt(schemaLockKey('projector-lease', SCHEMA));
      const [classid, objid] = [String((key >> 32n) & 0xffffffffn), String(key & 0xffffffffn)];

      const terminated = await withAdmin(async (client) => {
        const { rows } = await client.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
             AND classid::bigint = $1 AND objid::bigint = $2
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [classid, objid],
        );
        expect(rows).toHaveLength(1);
        return client.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      });
      expect(terminated.rowCount).toBe(1);

      await eventually(() => !first.holdsProjectorLease(), 5_000, 'the first store to lose the lease', 25);
      await eventually(() => second.tryAcquireProjectorLease(), 5_000, 'the second store to take the lease', 25);
      expect(second.holdsProjectorLease()).toBe(true);
      expect(await first.tryAcquireProjectorLease()).toBe(false);
    });

    it('recovers after its pooled connections are terminated (57P01): calls fail only with ReadModelUnavailableError, then work again', async () => {
      const applicationName = `wts-rm-test-${randomUUID().slice(0, 8)}`;
      const store = await openStore({ applicationName });
      await Promise.all([store.ping(), store.ping(), store.ping()]);

      const terminated = await withAdmin((client) =>
        client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]),
      );
      expect(terminated.rowCount).toBeGreaterThan(0);
      const outcomes = await Promise.all(
        [store.ping(), store.ping(), store.loadCheckpoint('x')].map((call) =>
          call.then(
            () => 'ok',
            (error: unknown) => error,
          ),
        ),
      );
      for (const outcome of outcomes) if (outcome !== 'ok') expect(outcome).toBeInstanceOf(ReadModelUnavailableError);

      await eventually(
        () =>
          store.ping().then(
            () => true,
            () => false,
          ),
        5_000,
        'PostgreSQL to answer again',
        25,
      );
    });

    it('rejects with ReadModelUnavailableError within a few seconds when no server listens (port 1)', async () => {
      const { error, ms } = await elapsed(() => PostgresReadModelStore.open({ connectionString: viaPort(1), schema: SCHEMA }));

      expect(error).toBeInstanceOf(ReadModelUnavailableError);
      expect((error as Error).message).toMatch(/ECONNREFUSED/);
      expect(ms).toBeLessThan(3_000);
    });

    it('rejects with ReadModelUnavailableError after the connection timeout when the server accepts but never answers', async () => {
      const silent = await startSilentServer();
      try {
        const { error, ms } = await elapsed(() =>
          PostgresReadModelStore.open({ connectionString: viaPort(silent.port), schema: SCHEMA, connectionTimeoutMs: 500 }),
        );

        expect(error).toBeInstanceOf(ReadModelUnavailableError);
        expect(ms).toBeLessThan(3_000);
      } finally {
        await silent.stop();
      }
    });

    it('answers ReadModelUnavailableError within a few seconds once the server goes away, and loses the lease', async () => {
      const target = new URL(DATABASE_URL);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      try {
        const store = await openStore({ connectionString: viaPort(proxy.port), connectionTimeoutMs: 1_000 });
        expect(await store.tryAcquireProjectorLease()).toBe(true);
        await store.ping();

        await proxy.stop();

        for (const call of [
          () => store.ping(),
          () => store.deliveries('r', { limit: 10 }),
          () => store.commit('x', [], undefined, { commit: 1n, prepare: 1n }),
        ]) {
          const { error, ms } = await elapsed(call);
          expect(error).toBeInstanceOf(ReadModelUnavailableError);
          expect(ms).toBeLessThan(3_000);
        }
        await eventually(() => !store.holdsProjectorLease(), 3_000, 'the store to give up the lease', 25);
        await expect(store.tryAcquireProjectorLease()).rejects.toBeInstanceOf(ReadModelUnavailableError);
      } finally {
        await proxy.stop();
      }
    });

    it('answers ReadModelUnavailableError within a few seconds when the server stops answering mid-connection', async () => {
      const target = new URL(DATABASE_URL);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      try {
        const store = await openStore({ connectionString: viaPort(proxy.port), connectionTimeoutMs: 1_000, statementTimeoutMs: 500 });
        await store.ping();

        proxy.freeze();

        const { error, ms } = await elapsed(() => store.ping());
        expect(error).toBeInstanceOf(ReadModelUnavailableError);
        expect(ms).toBeLessThan(5_000);
      } finally {
        await proxy.stop();
      }
    });

    it('bounds lock waits with statement_timeout: a commit blocked behind another session fails as unavailable (57014)', async () => {
      const store = await openStore({ statementTimeoutMs: 300 });
      await withAdmin(async (client) => {
        await client.query('SELECT pg_advisory_lock($1::bigint)', [schemaLockKey('commit', SCHEMA)]);
        const { error, ms } = await elapsed(() => store.commit(`${randomUUID()}`, [], undefined, { commit: 1n, prepare: 1n }));
        expect(error).toBeInstanceOf(ReadModelUnavailableError);
        expect((error as Error).message).toMatch(/commit failed: 57014/);
        expect(ms).toBeLessThan(3_000);
      });
    });
  });
}
