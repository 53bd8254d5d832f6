import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { readSqliteFile, sqliteFileHeader, whileWriteLocked } from '@wts/testing';
import { readModelContract } from '../contract/read-model.suite';
import { trimDenied, type DeniedClass } from '../denied-access.policy';
import { candidateListing, type CandidateShape } from '../payload-selection';
import { ReadModelUnavailableError, type ReadModelStore } from '../read-model.port';
import { READ_MODEL_SCHEMA_VERSION } from './sqlite-read-model.migrations';
import { SQLITE_CANDIDATES } from './sqlite-read-model.statements';
import { SqliteReadModelStore } from './sqlite-read-model.store';
import { useOpenedStores, useTempFiles } from './testing/sqlite-read-model.fixtures';

const tempFile = useTempFiles();

for (const activityOffThread of [false, true]) {
  readModelContract(
    `SqliteReadModelStore${activityOffThread ? ' (attempts and replays written on the activity thread, as the ingress does)' : ''}`,
    async () => {
      const file = tempFile();
      const opened: ReadModelStore[] = [];
      const open = (): ReadModelStore => {
        const store = SqliteReadModelStore.open(file, { activityOffThread });
        opened.push(store);
        return store;
      };
      return {
        store: open(),
        openAnother: async () => open(),
        cleanup: async () => {
          await Promise.all(opened.map((store) => store.close()));
        },
      };
    },
  );
}

/**
 * A second OS process: transpiles the TypeScript sources on require (there is no build output in
 * tests), prints "ready", then for each stdin line {"file","at"} spins until `at`, opens the store
 * on that file, races a first commit of checkpoint "race", closes, and prints the outcome.
 */
const OPEN_AND_COMMIT_WORKER = `
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const ts = require('typescript');
// The @wts/* path aliases, as jest's moduleNameMapper maps them: libs/<name>/src.
const resolve = Module._resolveFilename;
const libs = path.resolve(path.dirname(process.argv[1]), '..', '..', '..');
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@wts\\/([a-z-]+)$/.exec(request);
  return resolve.call(this, alias ? path.join(libs, alias[1], 'src', 'index.ts') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};
const { SqliteReadModelStore } = require(process.argv[1]);
let buffer = '';
process.stdin.setEncoding('utf8').on('data', async (chunk) => {
  buffer += chunk;
  const lines = buffer.split('\\n');
  buffer = lines.pop();
  for (const line of lines) {
    const job = JSON.parse(line);
    while (Date.now() < job.at) {}
    try {
      const store = SqliteReadModelStore.open(job.file, { busyTimeoutMs: 10000 });
      const won = await store.commit('race', [], undefined, { commit: BigInt(process.pid), prepare: 0n });
      await store.close();
      process.stdout.write(JSON.stringify({ won }) + '\\n');
    } catch (error) {
      process.stdout.write(JSON.stringify({ error: String(error) }) + '\\n');
    }
  }
});
process.stdout.write('ready\\n');
`;

interface Worker {
  readonly child: ChildProcessWithoutNullStreams;
  nextLine(): Promise<string>;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
}

function startWorker(): Worker {
  const child = spawn(process.execPath, ['-e', OPEN_AND_COMMIT_WORKER, join(__dirname, 'sqlite-read-model.store.ts')], {
    cwd: process.cwd(),
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) (waiting.shift() ?? ((text: string) => lines.push(text)))(line);
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const died = exit.then((code): never => {
    throw new Error(`worker exited (${code}): ${stderr}`);
  });
  died.catch(() => undefined);
  const nextLine = (): Promise<string> => {
    const line = lines.shift();
    return line !== undefined ? Promise.resolve(line) : Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), died]);
  };
  return { child, nextLine, exited: exit.then(() => undefined) };
}

describe('SqliteReadModelStore (SQLite specifics)', () => {
  const openStore = useOpenedStores();

  it('creates the parent directories and the file in WAL mode with the schema version in user_version', () => {
    const file = tempFile();
    openStore(file);

    expect(sqliteFileHeader(file)).toEqual({ journalMode: 'wal', userVersion: READ_MODEL_SCHEMA_VERSION });
    expect(READ_MODEL_SCHEMA_VERSION).toBe(8);
  });

  it('reopens an existing file with its data and checkpoint', async () => {
    const file = tempFile();
    const first = openStore(file);
    expect(await first.commit('projector', [], undefined, { commit: 7n, prepare: 3n })).toBe(true);
    await first.close();

    expect(await openStore(file).loadCheckpoint('projector')).toEqual({ commit: 7n, prepare: 3n });
  });

  it.each<DeniedClass>(['anonymous', 'named'])(
    "trims %s denied entries through that class's partial indexes: never a scan of the audit table",
    (deniedClass) => {
      const file = tempFile();
      openStore(file);
      readSqliteFile(file, (raw) => {
        const steps = (sql: string): string[] =>
          raw
            .prepare<[Record<string, unknown>], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
            .all({ keep: 100, source: '203.0.113.1' })
            .map((row) => row.detail)
            .filter((detail) => detail.includes('rm_audit_entries'));
        const overall = steps(trimDenied(deniedClass, { keep: '@keep' })); // the table's steps: each through the class's index
        expect(overall).toHaveLength(2);
        for (const step of overall) expect(step).toMatch(new RegExp(`USING (COVERING )?INDEX rm_audit_denied_${deniedClass}( |$)`));
        // Of one source: both steps start at the source in its index (a search, bounded by keep + 1 entries).
        const ofSource = steps(trimDenied(deniedClass, { keep: '@keep', source: '@source' }));
        expect(ofSource).toHaveLength(2);
        for (const step of ofSource) {
          expect(step).toMatch(
            new RegExp(`^SEARCH rm_audit_entries USING (COVERING )?INDEX rm_audit_denied_${deniedClass}_by_source \\(source_address=\\?`),
          );
        }
      });
    },
  );

  it("reads an erasure's candidates through the one index of kept rows by receipt time, or by the ids given: never a scan of every delivery", () => {
    const file = tempFile();
    openStore(file);
    const none: CandidateShape = { ids: false, routine: false, account: false, receivedAfter: false, receivedBefore: false, after: false };
    readSqliteFile(file, (raw) => {
      const plan = (shape: CandidateShape): string[] => {
        const listing = candidateListing(shape, SQLITE_CANDIDATES);
        const values = Object.fromEntries(
          listing.params.map((name) => [name, name === 'limit' ? 10 : name === 'deliveryIds' ? '["d"]' : 'x']),
        );
        return raw
          .prepare<[Record<string, unknown>], { detail: string }>(`EXPLAIN QUERY PLAN ${listing.text}`)
          .all(values)
          .map((row) => row.detail)
          .filter((detail) => detail.includes('rm_deliveries'));
      };
      for (const shape of [
        { ...none, routine: true },
        { ...none, account: true, after: true },
        { ...none, routine: true, account: true, receivedAfter: true, receivedBefore: true },
      ]) {
        expect(plan(shape)).toEqual([expect.stringMatching(/^(SCAN|SEARCH) rm_deliveries USING INDEX rm_deliveries_kept_by_received/)]);
      }
      const byIds = plan({ ...none, ids: true, routine: true });
      expect(byIds.join('\n')).toMatch(/SEARCH rm_deliveries USING INDEX sqlite_autoindex_rm_deliveries_1 \(delivery_id=\?\)/);
    });
  });

  it('answers ReadModelUnavailableError naming the operation when another connection holds the write lock past the busy timeout', async () => {
    const file = tempFile();
    const store = openStore(file, { busyTimeoutMs: 50 });
    await whileWriteLocked(file, async () => {
      await expect(store.commit('projector', [], undefined, { commit: 1n, prepare: 1n })).rejects.toThrow(ReadModelUnavailableError);
      await expect(store.recordReplays(['d'])).rejects.toThrow(/recordReplays failed: SQLITE_BUSY/);
      // Reads still work under WAL while a writer holds the lock.
      await expect(store.loadCheckpoint('projector')).resolves.toBeUndefined();
    });
    expect(await store.commit('projector', [], undefined, { commit: 1n, prepare: 1n })).toBe(true);
  });

  it('several OS processes open the same new file at the same moment; all opens succeed and exactly one first commit wins', async () => {
    const workers = Array.from({ length: 4 }, () => startWorker());
    try {
      for (const worker of workers) expect(await worker.nextLine()).toBe('ready');
      for (let round = 0; round < 3; round += 1) {
        const job = JSON.stringify({ file: tempFile(), at: Date.now() + 150 });
        for (const worker of workers) worker.child.stdin.write(`${job}\n`);
        const outcomes = await Promise.all(
          workers.map(async (worker) => JSON.parse(await worker.nextLine()) as { won?: boolean; error?: string }),
        );

        expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
        expect(outcomes.filter((outcome) => outcome.won === true)).toHaveLength(1);
      }
    } finally {
      for (const worker of workers) worker.child.kill();
      await Promise.all(workers.map((worker) => worker.exited));
    }
  }, 60_000);
});
