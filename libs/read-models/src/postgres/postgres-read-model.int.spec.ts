import { randomUUID } from 'node:crypto';
import { eventually } from '@wts/testing';
import { readModelContract } from '../contract/read-model.suite';
import { ReadModelUnavailableError } from '../read-model.port';
import { schemaLockKey } from './postgres-lock.keys';
import { PostgresReadModelStore } from './postgres-read-model.store';
import { DATABASE_URL, dropSchemasAfterAll, uniqueSchema, whenPostgresReachable, withAdmin } from './testing/postgres-read-model.fixtures';
import { startSilentServer, startTcpProxy, type TcpProxy } from './testing/tcp-proxy';
import { useOpenedPostgresStores } from '../../../../test/support/postgres-read-model.kit';

/**
 * Against the real PostgreSQL of this machine (TEST_DATABASE_URL): the contract, the lease and
 * outages. The suite works in a schema of its own, created by the store and dropped at the end;
 * the outage cases go through a local TCP relay or a silent socket, never by touching the shared
 * server. Schema versions and upgrades: postgres-read-model-upgrade.int.spec.ts.
 */

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

/** Runs `use` with a TCP proxy in front of the test database and the connection string through it; stops the proxy after. */
async function withProxiedDatabase(use: (proxy: TcpProxy, connectionString: string) => Promise<void>): Promise<void> {
  const target = new URL(DATABASE_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  try {
    await use(proxy, viaPort(proxy.port));
  } finally {
    await proxy.stop();
  }
}

const SCHEMA = uniqueSchema();
const schemas = [SCHEMA];

whenPostgresReachable(() => {
  const openStore = useOpenedPostgresStores({ schema: SCHEMA });

  dropSchemasAfterAll(schemas);

  readModelContract('PostgresReadModelStore', async () => {
    const store = await openStore();
    return { store, openAnother: () => openStore(), cleanup: async () => undefined };
  });

  describe('PostgresReadModelStore (PostgreSQL specifics)', () => {
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
      await withProxiedDatabase(async (proxy, connectionString) => {
        const store = await openStore({ connectionString, connectionTimeoutMs: 1_000 });
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
      });
    });

    it('answers ReadModelUnavailableError within a few seconds when the server stops answering mid-connection', async () => {
      await withProxiedDatabase(async (proxy, connectionString) => {
        const store = await openStore({ connectionString, connectionTimeoutMs: 1_000, statementTimeoutMs: 500 });
        await store.ping();

        proxy.freeze();

        const { error, ms } = await elapsed(() => store.ping());
        expect(error).toBeInstanceOf(ReadModelUnavailableError);
        expect(ms).toBeLessThan(5_000);
      });
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
});
