import { ACCOUNT_CATALOG_STREAM, Streams, type DeliveryAccepted, type ServiceEvent } from '@wts/contracts';
import { SqliteEventStore, type AppendOptions } from '@wts/event-store';
import { ACCOUNT_A, ROUTINE_ID } from '@wts/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toAppend } from '../../shared/event-envelope';
import { systemClock } from '../../shared/system-runtime.adapter';
import type { DispatchDelivery } from '../dispatch-delivery.usecase';
import { ParkDispatchUseCase } from '../park-dispatch.usecase';
import { ReleaseDrainWorker } from '../release-drain.worker';

export const HELD = 'whk_HELDHELDHELDHELDHELDH';
export const OTHER = 'whk_OTHEROTHEROTHEROTHERO';
export const T0 = '2026-01-01T00:00:00.000Z';
export const PAYLOAD_EXPIRES_AT = '2026-01-31T00:00:00.000Z';
const LOGGER = { info: (): void => undefined, error: (): void => undefined };

export const heldEvent = (webhookId: string): ServiceEvent => ({
  type: 'WebhookHeld',
  data: { webhookId, heldAt: T0, heldBy: 'ada', releaseAt: null },
});

export const releasedEvent = (webhookId: string, discard = false): ServiceEvent => ({
  type: 'WebhookReleased',
  data: { webhookId, releasedAt: T0, releasedBy: 'ada', expired: false, discard },
});

/**
 * A store for the release drain's tests (test code, not shipped): a routine with account ACCOUNT_A in
 * scope, webhooks HELD and OTHER enabled on it, and helpers to append events and deliveries.
 */
export class ReleaseDrainFixture {
  readonly store: SqliteEventStore;
  private readonly dir: string;
  private readonly revisions = new Map<string, number>();
  private n = 0;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'wts-release-'));
    this.store = SqliteEventStore.open(join(this.dir, 'events.sqlite'));
  }

  async setUp(): Promise<void> {
    await this.connectAccount(ACCOUNT_A, 'ops@example.com');
    await this.append(Streams.routine(ROUTINE_ID), {
      type: 'RoutineCreated',
      data: {
        routineId: ROUTINE_ID,
        name: 'T',
        instructions: 'i',
        tools: [],
        mode: 'supervised',
        accountScope: [ACCOUNT_A],
        createdAt: T0,
      },
    });
    for (const webhookId of [HELD, OTHER]) {
      await this.append(Streams.webhook(webhookId), {
        type: 'WebhookEnabled',
        data: {
          webhookId,
          routineId: ROUTINE_ID,
          secretDigest: 'b'.repeat(64),
          defaultAccount: { accountId: ACCOUNT_A, email: 'ops@example.com' },
          accountOverrideAllowed: false,
          enabledAt: T0,
        },
      });
    }
  }

  /** An account connected at T0 (no aliases). */
  async connectAccount(accountId: string, email: string): Promise<void> {
    await this.append(ACCOUNT_CATALOG_STREAM, { type: 'AccountConnected', data: { accountId, email, aliases: [], connectedAt: T0 } });
  }

  /** The directory holding the store's files (events.sqlite and its -wal and -shm). */
  get directory(): string {
    return this.dir;
  }

  async tearDown(): Promise<void> {
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async append(streamId: string, event: ServiceEvent, options?: AppendOptions): Promise<void> {
    const expected = this.revisions.has(streamId) ? BigInt(this.revisions.get(streamId) as number) : 'no_stream';
    const context = { correlationId: 'c', causationId: 'c', traceparent: '' };
    const newId = (): string => `00000000-0000-4000-8000-${String(++this.n).padStart(12, '0')}`;
    const result = await this.store.append(streamId, toAppend([event], context, newId), expected, options);
    if (result.kind !== 'appended') throw new Error(`not appended to ${streamId}`);
    this.revisions.set(streamId, (this.revisions.get(streamId) ?? -1) + 1);
  }

  /** A delivery accepted at T0, its payload kept apart (`delivery <i>` unless given) until PAYLOAD_EXPIRES_AT unless given. */
  async deliver(webhookId: string, i: number, accountId = ACCOUNT_A, body?: { text: string; expiresAt: string }): Promise<string> {
    const text = body?.text ?? `delivery ${i}`;
    const expiresAt = body?.expiresAt ?? PAYLOAD_EXPIRES_AT;
    const suffix = `${webhookId.slice(4, 8)}${String(i).padStart(18, '0')}`;
    const data: DeliveryAccepted['data'] = {
      deliveryId: `dlv_${suffix}`,
      webhookId,
      routineId: ROUTINE_ID,
      runId: `run_${suffix}`,
      triggerAccount: { accountId, email: 'ops@example.com' },
      payloadFormat: 'text',
      payloadBytes: Buffer.byteLength(text),
      payloadExpiresAt: expiresAt,
      contentType: 'text/plain',
      idempotencyKey: null,
      requestDigest: 'a'.repeat(64),
      receivedAt: T0,
    };
    const payload = { key: data.deliveryId, webhookId, format: 'text' as const, text };
    const times = { receivedAt: Date.parse(T0), expiresAt: Date.parse(expiresAt) };
    await this.append(Streams.delivery(data.deliveryId), { type: 'DeliveryAccepted', data }, { payload: { ...payload, ...times } });
    return data.deliveryId;
  }

  /** The runs made, in the order they were made: each one's delivery id. */
  async runsInOrder(): Promise<string[]> {
    const runs = await this.store.readAll({ limit: 10_000, filter: { streamPrefixes: ['run-'] } });
    // A run stream may hold a RunWithheld instead (its payload removed first): no run.
    return runs.filter((run) => run.type === 'RunCreated').map((run) => (run.data as { deliveryId: string }).deliveryId);
  }

  worker(dispatch: DispatchDelivery, onReleased?: (webhookId: string, count: number) => void): ReleaseDrainWorker {
    return new ReleaseDrainWorker({
      store: this.store,
      checkpoints: this.store.checkpoints(),
      dispatch,
      park: new ParkDispatchUseCase(this.store, systemClock),
      logger: LOGGER,
      options: { pageSize: 7, retryDelayMs: 5, maxRetryDelayMs: 10 },
      ...(onReleased ? { onReleased } : {}),
    });
  }
}
