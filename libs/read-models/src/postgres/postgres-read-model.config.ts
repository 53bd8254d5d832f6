import type { PoolConfig } from 'pg';

export interface PostgresReadModelStoreOptions {
  readonly connectionString: string;
  /** Where the tables live (created when missing); `public` by default. */
  readonly schema?: string;
  readonly poolSize?: number;
  /** How long to wait for a connection (TCP + startup, or a free pool slot). Default 5 s. */
  readonly connectionTimeoutMs?: number;
  /** Server-side limit per statement, lock waits included. Default 10 s. */
  readonly statementTimeoutMs?: number;
  /** Shown in pg_stat_activity (the lease connection adds "-lease"). Default `wts-read-models`. */
  readonly applicationName?: string;
  /** How often a held lease checks that its connection still answers. Default 5 s. */
  readonly leaseHeartbeatMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The schema, checked, and the settings of every connection to it: `search_path` set to the
 * schema, and a bound on every call (connection timeout, statement_timeout, and a client-side
 * query timeout for a server that stops answering) so that a dead server is an error, never a hang.
 */
export function connectionOf(options: PostgresReadModelStoreOptions): { readonly schema: string; readonly connection: PoolConfig } {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new RangeError(`invalid read-model schema name ${JSON.stringify(schema)}`);
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const connection: PoolConfig = {
    connectionString: options.connectionString,
    // A connection string's own `options` parameter would take precedence over this one.
    options: `-c search_path=${schema}`,
    application_name: options.applicationName ?? 'wts-read-models',
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    statement_timeout: statementTimeoutMs,
    // Client-side backstop for a server that stops answering (statement_timeout never fires there).
    query_timeout: statementTimeoutMs + 2_000,
    idle_in_transaction_session_timeout: statementTimeoutMs * 3,
    keepAlive: true,
  };
  return { schema, connection };
}
