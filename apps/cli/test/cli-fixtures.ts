import type { DispatchOutcome, StoreDispatchWorker } from '@wts/application';
import { StreamCategories } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import { randomUUID } from 'node:crypto';
import { eventually } from '@wts/testing';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { startStoreDispatcher } from '../../../test/support/in-process-dispatcher';
import { appendAcceptedDelivery } from '../../../test/support/undispatchable-delivery';

export interface SeededStore {
  readonly app: IngressTestApp;
  readonly hooks: readonly WebhookFixture[];
  /** Delivery ids answered with 202 (an idempotent repeat is not a new delivery). */
  readonly deliveryIds: readonly string[];
  readonly env: Record<string, string>;
}

/**
 * A real ingress on a temp DATA_DIR: two routines with enabled webhooks, JSON and text
 * deliveries (one idempotency key sent twice), through real HTTP.
 */
export async function seedStore(): Promise<SeededStore> {
  const app = await IngressTestApp.start();
  const hooks = [await app.setupWebhook(), await app.setupWebhook()];
  const ids = new Set<string>();
  const accept = async (result: { status: number; json: unknown; text: string }): Promise<void> => {
    if (result.status !== 202) throw new Error(`delivery answered ${result.status}: ${result.text}`);
    ids.add((result.json as { delivery_id: string }).delivery_id);
  };
  for (let i = 0; i < 3; i++)
    await accept(await app.deliver(hooks[0], { body: `{"data":{"alert":"disk ${i}","big":12345678901234567890}}` }));
  for (let i = 0; i < 2; i++) {
    await accept(
      await app.deliver(hooks[0], {
        headers: { 'x-service-idempotency-key': 'alert-42' },
        body: JSON.stringify({ data: { alert: 'once' } }),
      }),
    );
  }
  for (let i = 0; i < 2; i++)
    await accept(await app.deliver(hooks[1], { contentType: 'text/plain', body: `plain text ${i}\nsecond line` }));
  return { app, hooks, deliveryIds: [...ids], env: { DATA_DIR: app.dataDir } };
}

/** Starts the in-process dispatcher and waits until every accepted delivery has its run. */
export async function createAllRuns(seeded: SeededStore): Promise<void> {
  await seeded.app.startDispatcher();
  await eventually(async () => (await seeded.app.createdRuns()).length >= seeded.deliveryIds.length, 10_000, 'a run per delivery');
}

/**
 * For a describe block: the seeded store with a run per delivery, made before its tests and closed
 * after them. Read it only inside hooks and tests.
 */
export function useSeededStoreWithRuns(): SeededStore {
  let seeded: SeededStore | undefined;
  beforeAll(async () => {
    seeded = await seedStore();
    await createAllRuns(seeded);
  });
  afterAll(async () => {
    await seeded?.app.close();
  });
  return new Proxy({} as SeededStore, {
    get(_target, property) {
      if (!seeded) throw new Error(`the seeded store is used (.${String(property)}) before beforeAll made it`);
      return Reflect.get(seeded, property, seeded);
    },
  });
}

/** RunCreated events per delivery id. */
/** How many events the store holds besides the records of command-line operations (a replay adds one, its audit record). */
export async function eventsBesidesOperatorActions(app: IngressTestApp): Promise<number> {
  return (await app.allEvents()).filter((event) => !event.streamId.startsWith(StreamCategories.operatorAction)).length;
}

export async function runsPerDelivery(app: IngressTestApp): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const event of await app.createdRuns()) {
    const deliveryId = (event.data as { deliveryId: string }).deliveryId;
    counts.set(deliveryId, (counts.get(deliveryId) ?? 0) + 1);
  }
  return counts;
}

/**
 * A DeliveryAccepted whose routine does not exist (appended directly, as a corrupted or foreign
 * history would hold it): the dispatcher can never turn it into a run and parks it.
 */
export async function appendOrphanDelivery(app: IngressTestApp): Promise<string> {
  const deliveryId = `dlv_orphan${randomUUID().replace(/-/g, '')}`;
  await appendAcceptedDelivery(app.store, {
    deliveryId,
    webhookId: `whk_orphan${randomUUID().replace(/-/g, '')}`,
    routineId: `rtn_missing${randomUUID().replace(/-/g, '')}`,
    runId: `run_orphan${randomUUID().replace(/-/g, '')}`,
    triggerAccount: { accountId: 'acc_missing0000000000000', email: 'nobody@example.com' },
  });
  return deliveryId;
}

/** A second dispatcher worker on the same store, counting what it dispatched. */
export async function startCountingWorker(app: IngressTestApp): Promise<{ worker: StoreDispatchWorker; outcomes: DispatchOutcome[] }> {
  const outcomes: DispatchOutcome[] = [];
  const worker = await startStoreDispatcher(app.store, app.store, {
    options: { checkpointEveryMs: 0, retryDelayMs: 50, maxRetryDelayMs: 200 },
    onDispatched: (outcome) => outcomes.push(outcome),
  });
  return { worker, outcomes };
}

export function positionOf(event: RecordedEvent): string {
  return `${event.position.commit}/${event.position.prepare}`;
}
