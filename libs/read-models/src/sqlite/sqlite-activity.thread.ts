import { parentPort, workerData } from 'node:worker_threads';
import { attemptValues } from '../read-model.records';
import type { ActivityReply, ActivityRequest, ActivityWorkerData } from './sqlite-activity.protocol';
import { prepareHourlyStatements, writeHourly } from './sqlite-hourly.statements';
import { SqliteReadModelConnection } from './sqlite-read-model.connection';
import { prepareStatements, writeDenied } from './sqlite-read-model.statements';

/**
 * The ingress's rejected attempts, replay counts, hourly counts and denied admin attempts, written on a thread of
 * their own with a connection of their own: a flood of refused requests costs the event loop a
 * push onto a queue, never a SQLite transaction (which, on the loop, would delay the answers that
 * follow it).
 */
const { filePath, busyTimeoutMs } = workerData as ActivityWorkerData;
const port = parentPort;
if (!port) throw new Error('sqlite-activity.thread runs as a worker thread');
const connection = SqliteReadModelConnection.open(filePath, busyTimeoutMs);
const q = prepareStatements(connection.db);
const writeAttempts = connection.db.transaction((request: Extract<ActivityRequest, { op: 'attempts' }>) => {
  for (const attempt of request.attempts) q.insertAttempt.run(...attemptValues(attempt));
  for (const webhookId of new Set(request.attempts.map((attempt) => attempt.webhookId)))
    q.pruneAttempts.run({ webhookId, keep: request.keep });
});
const writeReplays = connection.db.transaction((request: Extract<ActivityRequest, { op: 'replays' }>) => {
  for (const [deliveryId, count] of request.counts) q.addReplays.run(deliveryId, count);
});
const writeDeniedAccess = connection.db.transaction((request: Extract<ActivityRequest, { op: 'denied' }>) =>
  writeDenied(q, request.rows, request.bounds),
);
const hourly = prepareHourlyStatements(connection.db);
const writeHourlyCounts = connection.db.transaction((request: Extract<ActivityRequest, { op: 'hourly' }>) =>
  writeHourly(hourly, request.counts, request.pruneBefore),
);

function write(request: ActivityRequest): void {
  switch (request.op) {
    case 'attempts':
      return writeAttempts.immediate(request);
    case 'replays':
      return writeReplays.immediate(request);
    case 'denied':
      return writeDeniedAccess.immediate(request);
    case 'hourly':
      return writeHourlyCounts.immediate(request);
  }
}

port.on('message', (request: ActivityRequest | 'close') => {
  if (request === 'close') {
    connection.close();
    port.postMessage('closed');
    port.close();
    return;
  }
  let reply: ActivityReply;
  try {
    connection.use(request.op, () => write(request));
    reply = { id: request.id, ok: true };
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
