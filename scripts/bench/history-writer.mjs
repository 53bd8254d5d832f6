/* global Buffer, performance */
/**
 * Writes a delivery history straight into an embedded store file: the events the ingress (and,
 * with `withRuns`, the dispatcher) would write, made by the same domain code from dist/, inserted
 * in large transactions — a benchmark's preparation in seconds, not its subject.
 */
import Database from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './bench-kit.mjs';

const require = createRequire(import.meta.url);
const {
  decideDelivery,
  decideRun,
  extractRequest,
  idFromBytes,
  parseContentType,
  runIdForDelivery,
  evolveRoutine,
  timeOrderedId,
} = require(join(REPO, 'dist/libs/domain/src'));
const { toAppend, cryptoRandom } = require(join(REPO, 'dist/libs/application/src'));
// The ids the services make (time-ordered where the build has them), so the store's indexes look as they would.
const newDeliveryId = timeOrderedId
  ? () => timeOrderedId('delivery', Date.now(), randomBytes(16))
  : () => idFromBytes('delivery', randomBytes(16));
const newEventId = cryptoRandom?.uuid ?? randomUUID;

/**
 * N DeliveryAccepted events (and with `withRuns` their RunCreated events, the dispatcher's checkpoint
 * then set past them), made by the same deciders the services use, inserted in transactions of
 * 1,000 deliveries. Returns what was written and how long it took.
 */
export function writeHistory(storeFile, hook, count, payloadBytes, { withRuns, log = () => undefined }) {
  const started = performance.now();
  const db = new Database(storeFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // a bulk load: the benchmark, not the service
  const routine = db
    .prepare('SELECT type, data FROM events WHERE stream_id = ? ORDER BY revision')
    .all(`routine-${hook.routineId}`)
    .map((row) => ({ type: row.type, data: JSON.parse(row.data) }))
    .reduce(evolveRoutine, null);
  const webhook = JSON.parse(
    db.prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'WebhookEnabled'").get(`webhook-${hook.webhookId}`).data,
  );
  const insert = db.prepare(
    'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES (?, 0, ?, ?, ?, ?, ?)',
  );
  const contentType = parseContentType('application/json');
  const bodyOf = () =>
    Buffer.from(
      JSON.stringify({
        data: {
          text: randomBytes(Math.ceil(payloadBytes * 0.75))
            .toString('base64')
            .slice(0, payloadBytes - 20),
        },
      }),
    );
  const writeBatch = db.transaction((from, to) => {
    for (let i = from; i < to; i += 1) {
      const deliveryId = newDeliveryId();
      const extracted = extractRequest({ bytes: bodyOf(), contentType, accountHeader: undefined });
      const now = new Date().toISOString();
      const accepted = decideDelivery(
        {
          type: 'AcceptDelivery',
          deliveryId,
          runId: runIdForDelivery(deliveryId),
          webhookId: hook.webhookId,
          routineId: hook.routineId,
          triggerAccount: webhook.defaultAccount,
          payload: extracted.payload,
          contentType: 'application/json',
          idempotencyKey: null,
          requestDigest: '0'.repeat(64),
          now,
          retentionMs: 86_400_000,
        },
        null,
      );
      const context = { correlationId: deliveryId, causationId: deliveryId, traceparent: '' };
      const [delivery] = toAppend(accepted.events, context, newEventId);
      insert.run(
        `delivery-${deliveryId}`,
        delivery.id,
        delivery.type,
        JSON.stringify(delivery.data),
        JSON.stringify(delivery.metadata),
        Date.now(),
      );
      if (!withRuns) continue;
      const run = decideRun({ type: 'CreateRun', delivery: accepted.events[0].data, routine, now }, null);
      const [created] = toAppend(run.events, { ...context, causationId: delivery.id }, newEventId);
      insert.run(
        `run-${accepted.events[0].data.runId}`,
        created.id,
        created.type,
        JSON.stringify(created.data),
        JSON.stringify(created.metadata),
        Date.now(),
      );
    }
  });
  for (let from = 0; from < count; from += 1000) {
    writeBatch(from, Math.min(count, from + 1000));
    if (from % 10_000 === 0) log(`  ${from} / ${count}`);
  }
  if (withRuns) {
    // As after the dispatcher had dispatched them all.
    const head = db.prepare('SELECT max(seq) AS head FROM events').get().head;
    db.prepare('INSERT OR REPLACE INTO checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES (?, ?, ?, ?)').run(
      'run-dispatcher/store-subscription',
      head,
      head,
      Date.now(),
    );
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return {
    deliveries: count,
    events: withRuns ? count * 2 : count,
    seconds: Math.round((performance.now() - started) / 10) / 100,
    store_bytes: statSync(storeFile).size,
  };
}
