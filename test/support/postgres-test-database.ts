import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The machine's PostgreSQL (trust auth), or TEST_DATABASE_URL. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** DATABASE_URL of a new, empty database. */
  readonly url: string;
  /** Drops it (closing whatever is still connected to it). */
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL does not answer at ${TEST_DATABASE_URL}, so this suite cannot run: start it (pg_ctlcluster $(ls /etc/postgresql) main start; ` +
        `npm test does it when run as root) or set TEST_DATABASE_URL (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on the real server: a suite's read models never meet another's. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `wts_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(5).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
