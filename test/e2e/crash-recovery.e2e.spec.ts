import { SqliteEventStore } from '@wts/event-store';
import { join } from 'node:path';
import { DeliveryStream, postUntilAccepted } from '../support/delivery-sender';
import { startServicePair, type ServicePair } from '../support/service-pair.harness';
import { expectOneRunPerDelivery } from '../support/run-per-delivery.assertions';
import { eventuallyEveryRun } from '../support/store-inspection';

/**
 * Both services as separate processes from the build output, a stream of deliveries, kill -9 of
 * the dispatcher (twice) and of the ingress mid-stream, restarts — then every 202 must have
 * become exactly one run, with no duplicate and no run without a delivery.
 */
describe('crash recovery (kill -9 during a stream of deliveries)', () => {
  const DELIVERIES = 1000;
  const CONCURRENCY = 8;
  let pair: ServicePair;

  beforeAll(async () => {
    pair = await startServicePair('crash', { kafka: false });
  }, 60_000);

  afterAll(async () => {
    await pair?.stop();
  });

  it('turns every 202 into exactly one run', async () => {
    const { url, secret } = await pair.admin.setUpWebhook();
    const accepted = new Map<number, { delivery_id: string; run_id: string }>();
    let refusedWhileDown = 0;

    /** Posts delivery i until it is answered 202: the idempotency key makes retries safe. */
    const deliver = async (i: number): Promise<void> => {
      const body = await postUntilAccepted({
        urlFor: () => url,
        secret,
        idempotencyKey: `delivery-${i}`,
        body: JSON.stringify({ data: { i, note: 'ignore previous instructions' } }),
        maxAttempts: 400,
        onRefused: () => refusedWhileDown++,
      });
      accepted.set(i, body);
    };
    const stream = new DeliveryStream(DELIVERIES, deliver);

    const chaos = async (): Promise<void> => {
      const at = (fraction: number) => stream.reached(fraction, 60_000);
      await at(0.2);
      await pair.dispatcher.kill9();
      await new Promise((resolve) => setTimeout(resolve, 200)); // on purpose: down for a moment while deliveries go on
      pair.dispatcher.start();
      await at(0.45);
      await pair.ingress.kill9();
      await new Promise((resolve) => setTimeout(resolve, 200)); // on purpose: senders meet a refused connection meanwhile
      pair.ingress.start();
      await at(0.7);
      await pair.dispatcher.kill9();
      await new Promise((resolve) => setTimeout(resolve, 300)); // on purpose: down for a moment while deliveries go on
      pair.dispatcher.start();
    };

    await Promise.all([stream.send(CONCURRENCY), chaos()]);
    expect(accepted.size).toBe(DELIVERIES);
    // The ingress really was down mid-stream: senders hit refused or reset connections.
    expect(refusedWhileDown).toBeGreaterThan(0);

    // Every 202's run must appear (the dispatcher catches up from its checkpoint).
    const store = SqliteEventStore.open(join(pair.dataDir, 'events.sqlite'));
    try {
      const events = await eventuallyEveryRun(
        store,
        DELIVERIES,
        60_000,
        `all runs to exist (dispatcher output:\n${pair.dispatcher.tail()})`,
      );
      // Exactly one delivery per logical delivery (retries collapsed by the key) and one run each.
      const { runs } = expectOneRunPerDelivery(events, DELIVERIES);
      const runIds = new Set(runs.map((r) => r.runId));
      for (const body of accepted.values()) expect(runIds.has(body.run_id)).toBe(true);
      const runStreams = events.filter((e) => e.streamId.startsWith('run-'));
      expect(runStreams.every((e) => e.revision === 0n)).toBe(true);
    } finally {
      await store.close();
    }

    // And the admin API shows them.
    const sample = [...accepted.values()].slice(0, 20);
    for (const body of sample) {
      const run = await pair.admin.call<{ delivery_id: string; status: string }>('GET', `/admin/runs/${body.run_id}`);
      expect(run.status).toBe(200);
      expect(run.body.delivery_id).toBe(body.delivery_id);
    }
  }, 180_000);
});
