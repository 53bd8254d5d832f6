/* global performance */
/**
 * Seeds an embedded store with deliveries and their payloads through the store's own API from
 * dist/ (SqliteEventStore.append with a payload attachment, as the ingress's DeliveryAppender
 * does): DeliveryAccepted v2 made by the domain's decider, the bench's body with a unique id
 * inside, and a handful of bodies that also carry the search string. The deliveries stand for
 * history already dispatched and projected: the dispatcher's subscription and the read-model
 * projector are moved to the store's head, so the services start without a catch-up of them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BODY, REPO } from './bench-kit.mjs';

const require = createRequire(import.meta.url);
const { decideDelivery, runIdForDelivery, timeOrderedId } = require(join(REPO, 'dist/libs/domain/src'));
const { toAppend, READ_MODEL_PROJECTION, STORE_DISPATCH_CHECKPOINT } = require(join(REPO, 'dist/libs/application/src'));
const { SqliteEventStore } = require(join(REPO, 'dist/libs/event-store/src'));
const { SqliteReadModelStore } = require(join(REPO, 'dist/libs/read-models/src'));

const DAY_MS = 86_400_000;
/** Appends in flight at once: enough for the writer thread's group commit to fill its batches. */
const IN_FLIGHT = 512;

/** The bench's body with a unique id in its `data` (and, for a needle delivery, the data subject's email). */
export function seededBody(id, needle) {
  const body = JSON.parse(BODY);
  body.data.id = id;
  if (needle) body.data.customer_email = needle;
  return JSON.stringify(body);
}

/**
 * `count` deliveries through `hook` (setUpWebhook's answer) into DATA_DIR's events.sqlite, of which
 * `needles` (spread evenly) contain `needle`. Returns how many and how long it took.
 */
export async function seedDeliveries(dataDir, hook, { count, needles, needle, log = () => undefined }) {
  const started = performance.now();
  const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'));
  const enabled = (await store.readStream(`webhook-${hook.webhookId}`)).find((event) => event.type === 'WebhookEnabled');
  const triggerAccount = enabled.data.defaultAccount;
  const every = Math.floor(count / needles);
  const needleKeys = [];
  let next = 0;
  const appendOne = async () => {
    const index = next;
    next += 1;
    const now = Date.now();
    const deliveryId = timeOrderedId('delivery', now, randomBytes(16));
    const isNeedle = index % every === every - 1 && needleKeys.length < needles;
    if (isNeedle) needleKeys.push(deliveryId);
    const json = seededBody(randomUUID(), isNeedle ? needle : undefined);
    const command = {
      type: 'AcceptDelivery',
      deliveryId,
      runId: runIdForDelivery(deliveryId),
      webhookId: hook.webhookId,
      routineId: hook.routineId,
      triggerAccount,
      payload: { format: 'json', json },
      contentType: 'application/json',
      idempotencyKey: null,
      requestDigest: '0'.repeat(64),
      now: new Date(now).toISOString(),
      retentionMs: DAY_MS,
      payloadExpiresAt: new Date(now + 30 * DAY_MS).toISOString(),
    };
    const decision = decideDelivery(command, null);
    const context = { correlationId: deliveryId, causationId: deliveryId, traceparent: '' };
    const payload = {
      key: deliveryId,
      webhookId: hook.webhookId,
      format: 'json',
      text: json,
      receivedAt: now,
      expiresAt: now + 30 * DAY_MS,
    };
    const result = await store.append(`delivery-${deliveryId}`, toAppend(decision.events, context, randomUUID), 'no_stream', { payload });
    if (result.kind !== 'appended') throw new Error(`seeding ${deliveryId}: ${result.kind}`);
    if ((index + 1) % 100_000 === 0)
      log(`  seeded ${index + 1} / ${count} (${Math.round((index + 1) / ((performance.now() - started) / 1000))}/s)`);
  };
  const lane = async () => {
    while (next < count) await appendOne();
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const head = await store.headPosition();
    await store.checkpoints().save(STORE_DISPATCH_CHECKPOINT, head);
    const readModels = SqliteReadModelStore.open(join(dataDir, 'readmodels.sqlite'));
    try {
      const from = await readModels.loadCheckpoint(READ_MODEL_PROJECTION);
      if (!(await readModels.commit(READ_MODEL_PROJECTION, [], from, head)))
        throw new Error('the read-model checkpoint moved while seeding');
    } finally {
      await readModels.close();
    }
  } finally {
    await store.close();
  }
  return { deliveries: count, needles: needleKeys.length, seconds: Math.round(performance.now() - started) / 1000 };
}
