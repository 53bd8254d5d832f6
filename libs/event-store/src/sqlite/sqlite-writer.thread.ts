/**
 * The embedded store's writer thread: every append (and checkpoint save) of this process goes
 * through it. Requests that arrive while a commit is under way wait for the next one, so
 * concurrent appends share one IMMEDIATE transaction and one fsync (group commit), while the main
 * thread's event loop never waits on the disk. Each append runs in its own savepoint: a conflict,
 * an idempotent retry or a refused append is decided exactly as if it ran alone, in arrival order,
 * and never affects the others. Nothing is answered before its batch is durable. A payload joins
 * its append's savepoint, and payload removals and bucket drops join a batch like any write; only
 * the WAL truncation runs between batches, as a checkpoint cannot run inside a transaction.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventStoreUnavailableError } from '../event-store.port';
import { appendInTransaction, type AppendOutcome } from './sqlite-append.transaction';
import { SqliteEventStatements } from './sqlite-event.statements';
import { SqlitePayloadWrites } from './sqlite-payload-write.statements';
import {
  toWriterError,
  type CommitReport,
  type TruncateOutcome,
  type WriterOptions,
  type WriterReply,
  type WriterRequest,
} from './sqlite-writer.protocol';
import { isSqliteError, sleepSync } from './sqlite-file.connection';
import { SqliteConnection, isBusy } from './sqlite.connection';

const port = parentPort;
if (!port) throw new Error('sqlite-writer.thread runs as a worker thread');
const options = workerData as WriterOptions;

// busy_timeout 0: a BEGIN IMMEDIATE that meets another process's write lock fails at once and is
// retried below every 0.1–1 ms, not after SQLite's 1, 2, 5, 10, 15 … ms sleeps.
const connection = SqliteConnection.open(options.filePath, {
  busyTimeoutMs: options.busyTimeoutMs,
  alreadyPrepared: true,
  sqliteBusyTimeoutMs: 0,
});
const queries = connection.use('prepare', (db) => new SqliteEventStatements(db));
const payloads = connection.use('prepare', (db) => new SqlitePayloadWrites(db));
const saveCheckpoint = connection.use('prepare', (db) =>
  db.prepare<[string, bigint, bigint, number]>(
    `INSERT INTO checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET commit_pos = excluded.commit_pos, prepare_pos = excluded.prepare_pos, updated_at = excluded.updated_at`,
  ),
);
/** One append in a savepoint of the batch's transaction (better-sqlite3 nests transactions as savepoints). */
const appendOne = connection.use('prepare', (db) =>
  db.transaction((request: Extract<WriterRequest, { op: 'append' }>) => {
    const { streamId, payload } = request;
    // Only with the events it came with (a conflict or an idempotent retry stores nothing new), its row on the first of them.
    const storePayload = payload && (() => payloads.store(streamId, payload));
    return appendInTransaction(queries, streamId, request.events, request.expected, storePayload);
  }),
);
/** A removal in a savepoint of its own: all of its keys, or (on a failure) none. */
const removePayloads = connection.use('prepare', (db) =>
  db.transaction((request: Extract<WriterRequest, { op: 'remove_payloads' }>) => payloads.remove(request.keys, request.removal)),
);
/** A batch: one IMMEDIATE transaction, one commit (one fsync with synchronous=FULL). */
let began = false;
const runBatch = connection.use('prepare', (db) =>
  db.transaction((batch: readonly WriterRequest[]) => {
    began = true;
    return batch.map(run);
  }),
);

const queue: WriterRequest[] = [];
let scheduled = false;

// The main thread's requests of one turn come as one array (the channel batches them).
port.on('message', (requests: readonly WriterRequest[] | 'close') => {
  if (requests === 'close') {
    drain();
    connection.close();
    port.postMessage('closed');
    return;
  }
  for (const request of requests) queue.push(request);
  if (!scheduled) {
    scheduled = true;
    // After the messages already waiting have arrived: they join this batch.
    setImmediate(drain);
  }
});

function drain(): void {
  scheduled = false;
  while (queue.length > 0) {
    const truncateAt = queue.findIndex((request) => request.op === 'checkpoint_truncate');
    if (truncateAt === 0) {
      truncate(queue.shift()?.id ?? 0);
      continue;
    }
    commit(queue.splice(0, truncateAt === -1 ? options.maxBatch : Math.min(truncateAt, options.maxBatch)));
  }
}

/**
 * One wal_checkpoint(TRUNCATE), with this handle's busy_timeout of 0: a reader of another
 * connection still on an older snapshot makes it answer busy at once (the caller tries again
 * later) instead of holding up the appends queued behind it.
 */
function truncate(id: number): void {
  let outcome: TruncateOutcome;
  try {
    const [row] = connection.use('checkpoint', (db) => db.pragma('wal_checkpoint(TRUNCATE)')) as { busy: bigint; log: bigint }[];
    outcome = { busy: Number(row.busy), log: Number(row.log) };
  } catch (error) {
    if (!isBusy(error)) {
      port?.postMessage({ id, ok: false, error: toWriterError(error) } satisfies WriterReply);
      return;
    }
    outcome = { busy: 1, log: -1 };
  }
  port?.postMessage({ id, ok: true, outcome } satisfies WriterReply);
}

function commit(batch: readonly WriterRequest[]): void {
  let replies: WriterReply[];
  const started = performance.now();
  try {
    replies = withWriteLock(() => connection.use('append', () => runBatch.immediate(batch)), started + options.busyTimeoutMs);
    port?.postMessage({ kind: 'commit', requests: batch.length, ms: performance.now() - started } satisfies CommitReport);
  } catch (error) {
    // The whole batch is rolled back (the disk, a lock held too long): none of it was written.
    const failure = toWriterError(
      error instanceof EventStoreUnavailableError
        ? error
        : new EventStoreUnavailableError(`event store append failed: ${String(error)}`, { cause: error }),
    );
    port?.postMessage(batch.map((request) => ({ id: request.id, ok: false, error: failure }) satisfies WriterReply));
    return;
  }
  // One message for the batch's replies.
  port?.postMessage(replies);
}

/**
 * Runs the batch, retrying while its BEGIN IMMEDIATE finds the write lock taken (by another process:
 * the ingress and the dispatcher share the file) until the deadline. Only a BEGIN is retried: once
 * the transaction has begun, a failure rolls the batch back and is reported as before.
 */
function withWriteLock<T>(attempt: () => T, deadline: number): T {
  for (let tries = 0; ; tries += 1) {
    began = false;
    try {
      return attempt();
    } catch (error) {
      if (began || !isBusy(error) || performance.now() >= deadline) throw error;
      sleepSync(Math.min(0.1 * 2 ** tries, 1));
    }
  }
}

function run(request: WriterRequest): WriterReply {
  switch (request.op) {
    case 'checkpoint':
      saveCheckpoint.run(request.name, request.commit, request.prepare, request.at);
      return { id: request.id, ok: true, outcome: null };
    case 'remove_payloads':
      return { id: request.id, ok: true, outcome: removePayloads(request) };
    case 'settle_payload_buckets':
      return { id: request.id, ok: true, outcome: payloads.settleBuckets(request.now, request.maxDrops, request.maxRows) };
    case 'checkpoint_truncate':
      throw new Error('checkpoint_truncate runs between batches'); // drain() never batches it
    case 'append':
      break;
  }
  try {
    const outcome: AppendOutcome = appendOne(request);
    return { id: request.id, ok: true, outcome };
  } catch (error) {
    // A SQLite failure is the batch's (rethrown: all roll back); the caller's errors are this append's.
    if (isSqliteError(error)) throw error;
    return { id: request.id, ok: false, error: toWriterError(error) };
  }
}
