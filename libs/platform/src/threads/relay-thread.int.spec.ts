import { Relays, relayCheckpointName, routeEvent } from '@wts/messaging';
import { eventually } from '@wts/testing';
import { appendDeliveries, appendRoutineWithWebhook } from '../../../../test/support/kafka-test-kit';
import { useRelayTestBed } from '../../../../test/support/relay-test.harness';
import { relayThread, type RelayOnlySettings } from './relay-thread.factory';

/** The ingress's relay on a thread of its own, against the store file the test appends to and the real broker. */
describe('a relay on its own thread (real broker)', () => {
  const currentBed = useRelayTestBed('relaythread');
  const errors: string[] = [];
  const logger = {
    info: (): void => undefined,
    warn: (): void => undefined,
    error: (_: object, message: string): void => void errors.push(message),
  };

  it('forwards what this process appends, in order, reports its gauges, and checkpoints on stop', async () => {
    const bed = currentBed();
    const hook = await appendRoutineWithWebhook(bed.store);
    await appendDeliveries(bed.store, hook, 3);
    const name = `${bed.name}-in`;
    const settings: RelayOnlySettings = {
      storage: { dataDir: bed.dir },
      eventStore: { connectionString: undefined, maxAppendBytes: 1_048_576 },
      tracing: { enabled: false },
      serviceName: 'ingress',
      definition: Relays.ingressWebhooks,
      relay: {
        kafka: { brokers: [...bed.brokers], sasl: undefined, ssl: false },
        payloadRetentionSeconds: 86_400,
        isolated: { name, topics: bed.topics },
      },
    };
    const refusals: Error[] = [];
    const thread = relayThread(settings, logger, (error) => refusals.push(error));
    await thread.start();
    try {
      // A cold start under the tests' loader compiles the thread's imports first; leading, it has made its topics.
      await eventually(() => thread.progress()?.leading === true, 60_000, 'the thread to lead');
      const reader = await bed.reader([bed.topics.webhookEvents]);
      await appendDeliveries(bed.store, hook, 2);
      const published = (await bed.store.readAll({ limit: 1000 })).filter((event) => routeEvent(event) !== undefined);
      await eventually(() => reader.messages.length >= published.length, 20_000, `${published.length} messages`);
      expect(reader.messages.map((message) => message.headers['event-id'])).toEqual(published.map((event) => event.id));
      await eventually(() => thread.progress()?.pendingEvents === 0, 20_000, 'nothing pending');
    } finally {
      await thread.stop();
    }
    const last = (await bed.store.readAll({ limit: 1000 })).filter((event) => routeEvent(event) !== undefined).at(-1);
    expect(await bed.store.checkpoints().load(relayCheckpointName(name))).toEqual(last?.position);
    expect(thread.progress()).toBeUndefined();
    expect(refusals).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
