import {
  Streams,
  type DeliveryAccepted,
  type PayloadsRemoved,
  type RunCreated,
  type RunWithheld,
  type SecretRotated,
  type WebhookEnabled,
  type WebhookIdAssigned,
} from '@wts/contracts';
import { SqliteEventStore, comparePositions, type GlobalPosition } from '@wts/event-store';
import { SqliteReadModelStore } from '@wts/read-models';
import { eventually, freshTextDelivery } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { causedBy, toAppend } from '../shared/event-envelope';
import { PROJECTED_PREFIXES, READ_MODEL_PROJECTION, toProjectionChanges } from './read-model.projection';
import { ReadModelProjector } from './read-model.projector';

const ROUTINE = 'rtn_ProjectorRoutine000000';
const silent = { info: (): void => undefined, error: (): void => undefined };
const fast = { batchSize: 7, flushEveryMs: 5, leaseRetryMs: 20, retryDelayMs: 20, verifyEveryMs: 20 };

/** The projector against a real SQLite event store and a real SQLite read-model database. */
describe('ReadModelProjector', () => {
  let dir: string;
  let store: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  const projectors: ReadModelProjector[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-projector-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 5 });
    readModels = SqliteReadModelStore.open(join(dir, 'readmodels.sqlite'));
  });

  afterEach(async () => {
    await Promise.all(projectors.splice(0).map((projector) => projector.stop()));
    await readModels.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function start(): ReadModelProjector {
    const projector = new ReadModelProjector(store, readModels, silent, fast);
    projectors.push(projector);
    projector.start();
    return projector;
  }

  async function accept(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const deliveryId = `dlv_${randomUUID().replace(/-/g, '')}`;
      const runId = `run_${randomUUID().replace(/-/g, '')}`;
      const triggerAccount = { accountId: 'acc_ProjectorAccount000000', email: 'ops@example.com' };
      const delivery: DeliveryAccepted = {
        type: 'DeliveryAccepted',
        data: freshTextDelivery(`n${i}`, {
          deliveryId,
          webhookId: 'whk_ProjectorWebhook000000',
          routineId: ROUTINE,
          runId,
          triggerAccount,
        }),
      };
      const run: RunCreated = {
        type: 'RunCreated',
        data: {
          runId,
          routineId: ROUTINE,
          webhookId: 'whk_ProjectorWebhook000000',
          deliveryId,
          triggerAccount,
          routine: { name: 'r', tools: [], instructions: 'i', mode: 'supervised' },
          framing: { version: 1, receivedAt: new Date().toISOString(), contentType: 'text/plain' },
          status: 'created',
          createdAt: new Date().toISOString(),
        },
      };
      const context = { correlationId: deliveryId, causationId: deliveryId, traceparent: '' };
      await store.append(Streams.delivery(deliveryId), toAppend([delivery], context, randomUUID), 'no_stream');
      // Traffic the projection does not read sits between them.
      await store.append(`webhook_slot-${randomUUID()}`, toAppend([{ type: 'Other', data: {} }], context, randomUUID), 'no_stream');
      await store.append(Streams.run(runId), toAppend([run], context, randomUUID), 'no_stream');
      ids.push(deliveryId);
    }
    return ids;
  }

  async function listed(): Promise<{ deliveries: string[]; runs: number }> {
    const deliveries = (await readModels.deliveries(ROUTINE, { limit: 1000 })).items.map((row) => row.delivery_id);
    const runs = (await readModels.runs(ROUTINE, { limit: 1000 })).items.length;
    return { deliveries, runs };
  }

  async function caughtUp(expected: number): Promise<void> {
    await caughtUpTo(expected, expected);
  }

  async function caughtUpTo(deliveries: number, runs: number): Promise<void> {
    const head = await store.headPosition();
    await eventually(
      async () => {
        const now = await listed();
        const checkpoint = await readModels.loadCheckpoint(READ_MODEL_PROJECTION);
        if (now.deliveries.length === deliveries && now.runs === runs && checkpoint && head && comparePositions(checkpoint, head) >= 0)
          return true;
        throw new Error(`not caught up: ${JSON.stringify(now)}`);
      },
      4000,
      `${deliveries} deliveries and ${runs} runs projected, the checkpoint at the head`,
      10,
    );
  }

  it('projects what was there before it started and what comes after, newest first, and checkpoints past the last event', async () => {
    const before = await accept(10);
    start();
    const after = await accept(10);
    await caughtUp(20);
    expect((await listed()).deliveries).toEqual([...before, ...after].reverse());
  });

  it('goes on from its checkpoint after a restart, projecting nothing twice', async () => {
    const first = start();
    const before = await accept(8);
    await caughtUp(8);
    await first.stop();
    const after = await accept(8);
    start();
    await caughtUp(16);
    expect((await listed()).deliveries).toEqual([...before, ...after].reverse());
  });

  it('starts again from the checkpoint a rebuild reset under it, and ends with every row once', async () => {
    start();
    const ids = await accept(12);
    await caughtUp(12);
    await readModels.reset(READ_MODEL_PROJECTION);
    expect((await listed()).deliveries).toEqual([]);
    await caughtUp(12);
    expect((await listed()).deliveries).toEqual([...ids].reverse());
  });

  it('lets two projectors on one database write each row once', async () => {
    start();
    start();
    const ids = await accept(15);
    await caughtUp(15);
    expect((await listed()).deliveries).toEqual([...ids].reverse());
  });

  it('projects admin writes into the audit trail, the routine of a webhook event that names only its webhook filled in', async () => {
    const webhookId = 'whk_ProjectorWebhook000000';
    const actor = { kind: 'oidc', subject: 'sub-alice', display: 'alice@example.com', displayVerified: true } as const;
    const traceId = 'a'.repeat(32);
    const admin = causedBy('req-1', 'req-1', `00-${traceId}-${'b'.repeat(16)}-01`, actor);
    const assigned: WebhookIdAssigned = {
      type: 'WebhookIdAssigned',
      data: { routineId: ROUTINE, webhookId, assignedAt: '2024-05-01T10:00:00.000Z' },
    };
    const enabled: WebhookEnabled = {
      type: 'WebhookEnabled',
      data: {
        webhookId,
        routineId: ROUTINE,
        secretDigest: 'e'.repeat(64),
        defaultAccount: { accountId: 'acc_ProjectorAccount000000', email: 'ops@example.com' },
        accountOverrideAllowed: false,
        enabledAt: '2024-05-01T10:00:01.000Z',
      },
    };
    const rotated: SecretRotated = {
      type: 'SecretRotated',
      data: { webhookId, secretDigest: 'f'.repeat(64), rotatedAt: '2024-05-01T10:00:02.000Z' },
    };
    await store.append(Streams.webhookSlot(ROUTINE), toAppend([assigned], admin, randomUUID), 'no_stream');
    await store.append(Streams.webhook(webhookId), toAppend([enabled], admin, randomUUID), 'no_stream');
    start();
    await accept(3);
    // Written by the service itself (no actor, no trace), in a later batch than the mapping.
    await store.append(Streams.webhook(webhookId), toAppend([rotated], causedBy('c', 'c'), randomUUID), 'stream_exists');
    await caughtUp(3);

    const entries = (await readModels.audit({ routineId: ROUTINE }, { limit: 100 })).items;
    expect(entries.map(({ entryId: _id, ...entry }) => entry)).toEqual([
      {
        at: '2024-05-01T10:00:02.000Z',
        actor: null,
        action: 'webhook.rotate',
        targetType: 'webhook',
        targetId: webhookId,
        routineId: ROUTINE,
        webhookId,
        outcome: 'succeeded',
        traceId: null,
        detail: null,
        sourceAddress: null,
      },
      {
        at: '2024-05-01T10:00:01.000Z',
        actor,
        action: 'webhook.enable',
        targetType: 'webhook',
        targetId: webhookId,
        routineId: ROUTINE,
        webhookId,
        outcome: 'succeeded',
        traceId,
        detail: null,
        sourceAddress: null,
      },
    ]);
    expect((await readModels.audit({ actor: 'ALICE@example.com' }, { limit: 100 })).items.map((entry) => entry.action)).toEqual([
      'webhook.enable',
    ]);
  });

  it("follows each delivery's payload state through removals (a repeat changes nothing), skips withheld runs, and a rebuild gives the same rows", async () => {
    const [d0, d1, d2] = await accept(3);
    const context = causedBy('c', 'c');
    // A delivery written before payloads were kept apart (schema version 1: its payload inline).
    const legacyId = `dlv_${randomUUID().replace(/-/g, '')}`;
    const legacyRun = `run_${randomUUID().replace(/-/g, '')}`;
    const [legacy] = toAppend([{ type: 'DeliveryAccepted', data: {} }], context, randomUUID);
    const legacyData = {
      deliveryId: legacyId,
      webhookId: 'whk_ProjectorWebhook000000',
      routineId: ROUTINE,
      runId: legacyRun,
      triggerAccount: { accountId: 'acc_ProjectorAccount000000', email: 'ops@example.com' },
      payload: { format: 'text', text: 'old' },
      contentType: 'text/plain',
      idempotencyKey: null,
      requestDigest: '0'.repeat(64),
      receivedAt: new Date().toISOString(),
    };
    await store.append(Streams.delivery(legacyId), [{ ...legacy, data: legacyData, metadata: {} }], 'no_stream');
    const withheld: RunWithheld = {
      type: 'RunWithheld',
      data: { runId: legacyRun, deliveryId: legacyId, reason: 'payload_removed', withheldAt: new Date().toISOString() },
    };
    await store.append(Streams.run(legacyRun), toAppend([withheld], context, randomUUID), 'no_stream');
    const removed = (reason: 'expired' | 'erased', removedAt: string, deliveryIds: string[]): PayloadsRemoved => ({
      type: 'PayloadsRemoved',
      data: { reason, erasureId: reason === 'erased' ? 'era_1' : null, removedAt, deliveryIds },
    });
    const removals = [
      removed('expired', '2024-06-01T00:00:00.000Z', [d0, d1]),
      removed('erased', '2024-06-02T00:00:00.000Z', [d1, d2]),
      // The first batch recorded again (a crash between the event and the overwrite).
      removed('expired', '2024-06-03T00:00:00.000Z', [d0, d1]),
    ];
    for (const removal of removals) {
      await store.append(Streams.payloadRemoval(randomUUID()), toAppend([removal], context, randomUUID), 'no_stream');
    }

    const states = async (): Promise<unknown[]> =>
      (await readModels.deliveries(ROUTINE, { limit: 100 })).items.map((row) => [
        row.delivery_id,
        row.payload_state,
        row.payload_removed_at,
        row.payload_expires_at === null,
      ]);
    const expected = [
      [legacyId, 'kept', null, true],
      [d2, 'erased', '2024-06-02T00:00:00.000Z', false],
      [d1, 'expired', '2024-06-01T00:00:00.000Z', false],
      [d0, 'expired', '2024-06-01T00:00:00.000Z', false],
    ];
    const projector = start();
    await caughtUpTo(4, 3);
    expect(await states()).toEqual(expected);
    await projector.stop();

    // As rebuild-read-models does it: reset, then every projected stream read again in batches.
    await readModels.reset(READ_MODEL_PROJECTION);
    let checkpoint: GlobalPosition | undefined;
    for (;;) {
      const batch = await store.readAll({ after: checkpoint, limit: 4, filter: { streamPrefixes: PROJECTED_PREFIXES } });
      const last = batch.at(-1);
      if (!last) break;
      expect(await readModels.commit(READ_MODEL_PROJECTION, batch.flatMap(toProjectionChanges), checkpoint, last.position)).toBe(true);
      checkpoint = last.position;
    }
    expect(await states()).toEqual(expected);
    expect((await readModels.runs(ROUTINE, { limit: 100 })).items).toHaveLength(3);
  });
});
