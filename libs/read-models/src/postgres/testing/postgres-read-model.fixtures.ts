/// <reference types="jest" />
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { READ_MODEL_MIGRATIONS } from '../postgres-read-model.migrations';

/**
 * What the PostgreSQL read-model specs share: the real PostgreSQL of this machine
 * (TEST_DATABASE_URL), schemas of their own (created per suite or test, dropped at the end), and
 * one failing test instead of a suite when the server cannot be reached.
 */
export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueSchema(): string {
  return `rm_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
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
export async function schemaAtVersion(schemas: string[], version: number, ...rows: string[]): Promise<string> {
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

/** Drops `schemas` (as filled by then) after the spec's tests. */
export function dropSchemasAfterAll(schemas: readonly string[]): void {
  afterAll(async () => {
    await withAdmin(async (client) => {
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }).catch(() => undefined);
  });
}

/**
 * Registers the spec's tests when PostgreSQL answers. Checked while the tests are collected (a
 * child process, so it can be synchronous): without a server the spec is one failing test saying
 * so, instead of every test failing in its hooks.
 */
export function whenPostgresReachable(register: () => void): void {
  const unreachable = postgresUnreachable();
  if (unreachable === undefined) {
    register();
    return;
  }
  it(`PostgreSQL is reachable at ${DATABASE_URL}`, () => {
    throw new Error(unreachable);
  });
}

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
