import type { Pool, PoolClient } from 'pg';
import { toUnavailable } from './postgres-read-model.errors';

/**
 * BEGIN … COMMIT on one pooled connection; `commit: false` rolls back (a refused
 * compare-and-set). On an error the connection is destroyed rather than rolled back: the server
 * rolls back a session that ends, and a ROLLBACK sent to a server that stopped answering would
 * only wait for the query timeout a second time.
 */
export async function inTransaction<T>(
  pool: Pool,
  operation: string,
  body: (client: PoolClient) => Promise<{ outcome: T; commit: boolean }>,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toUnavailable(operation, error);
  }
  try {
    await client.query('BEGIN');
    const { outcome, commit } = await body(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    client.release();
    return outcome;
  } catch (error) {
    client.release(true);
    throw toUnavailable(operation, error);
  }
}
