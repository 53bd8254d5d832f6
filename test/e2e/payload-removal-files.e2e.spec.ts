import { eventually } from '@wts/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { AdminClient } from '../support/admin-client';
import { filesContaining } from '../support/in-process-erasures';
import { createTestDatabase, type TestDatabase } from '../support/postgres-test-database';
import { assertBuilt, startReadyPair, type ReadyPair } from '../support/service-processes';

type Json = Record<string, unknown>;

/** The PostgreSQL files that can hold this database's rows: its own directory under base/, and the write-ahead log. */
async function postgresFiles(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CHECKPOINT'); // dirty pages and the WAL on disk, so a copy anywhere would be found
    const dataDirectory = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0].data_directory;
    const oid = (await client.query<{ oid: string }>('SELECT oid::text FROM pg_database WHERE datname = current_database()')).rows[0].oid;
    return [join(dataDirectory, 'base', oid), join(dataDirectory, 'pg_wal')];
  } finally {
    await client.end();
  }
}

/**
 * "Removed means removed", with the services as they run: the ingress and the run-dispatcher from
 * dist/ as processes, logging at trace level, read models on the machine's PostgreSQL. Payloads carry
 * unique markers; after an erasure by `contains` is done, no erased marker (nor the search string)
 * is in any file under DATA_DIR, no marker at all is in PostgreSQL's files for the database (the
 * read models never hold a payload), and neither service ever printed one; the kept payload still
 * reads. (Expiry removes through the same PayloadRemover: its raw-bytes check on the store is
 * payload-retention.worker.int.spec.ts.)
 */
describe('an erased payload is in no file: the event store, PostgreSQL read models, the logs', () => {
  let dataDir: string;
  let database: TestDatabase;
  let pair: ReadyPair | undefined;
  let admin: AdminClient;

  beforeAll(async () => {
    assertBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-removal-files-'));
    database = await createTestDatabase('removal_files');
    const token = randomBytes(24).toString('base64url');
    pair = await startReadyPair({ DATA_DIR: dataDir, ADMIN_TOKEN: token, LOG_LEVEL: 'trace', DATABASE_URL: database.url });
    admin = new AdminClient(pair.ingressUrl, token);
  }, 90_000);

  afterAll(async () => {
    await pair?.ingress.stop();
    await pair?.dispatcher.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('erases by contains and leaves no byte of the erased payloads or the search string anywhere', async () => {
    const hook = await admin.setUpWebhook('files@example.com');
    const subject = `Subject-${randomUUID()}`;
    const erased = [`Erase-${randomUUID()} ${subject}`, `Erase-${randomUUID()} ${subject.toUpperCase()}`];
    const kept = `Keep-${randomUUID()}`;
    const runIds: string[] = [];
    for (const marker of [...erased, kept]) {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ customer: { note: `about ${marker} here` } }),
      });
      expect(response.status).toBe(202);
      runIds.push(((await response.json()) as { run_id: string }).run_id);
    }
    const runOf = async (runId: string): Promise<Json | undefined> => {
      const answer = await admin.call<Json>('GET', `/admin/runs/${runId}`);
      return answer.status === 200 ? answer.body : undefined;
    };
    for (const runId of runIds) await eventually(() => runOf(runId), 30_000, `run ${runId} in the read models`);

    const search = subject.toLowerCase();
    const accepted = await admin.call<Json>('POST', '/admin/erasures', { contains: search });
    expect(accepted.status).toBe(202);
    const done = await eventually(
      async () => {
        const answer = (await admin.call<Json>('GET', `/admin/erasures/${String(accepted.body.erasure_id)}`)).body;
        return answer.status === 'done' ? answer : undefined;
      },
      60_000,
      `the erasure to be done (dispatcher output:\n${pair?.dispatcher.tail()})`,
    );
    expect(done).toMatchObject({ selected: 2, erased: 2 });

    for (const runId of runIds.slice(0, 2)) {
      const run = await eventually(
        async () => {
          const answer = await runOf(runId);
          return answer?.payload_state === 'erased' ? answer : undefined;
        },
        30_000,
        `run ${runId} to answer erased`,
      );
      expect(run).toMatchObject({ payload: null, initial_message: null, payload_state: 'erased' });
    }
    expect(JSON.stringify((await runOf(runIds[2]))?.payload)).toContain(kept);

    const needles = [...erased, subject, search];
    expect(filesContaining(dataDir, needles)).toEqual([]);
    expect(filesContaining(dataDir, [kept])).not.toEqual([]);
    const postgres = await postgresFiles(database.url);
    expect(postgres.flatMap((dir) => filesContaining(dir, [...needles, kept]))).toEqual([]);
    const services = pair as ReadyPair;
    expect(services.ingress.printed([...needles, kept])).toEqual([]);
    expect(services.dispatcher.printed([...needles, kept])).toEqual([]);
    // The logs really were at trace level: each request left a line.
    expect(services.ingress.printed([runIds[2]])).toEqual([runIds[2]]);
  }, 120_000);
});
