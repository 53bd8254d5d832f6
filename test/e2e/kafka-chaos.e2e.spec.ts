import { SqliteEventStore } from '@wts/event-store';
import { KafkaTopics } from '@wts/messaging';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../support/admin-client';
import { kafkaScriptOrThrow, runKafkaScript } from '../support/kafka-broker';
import { securedBrokerEnv, serviceKafkaEnv, startSecuredKafkaBroker } from '../support/kafka-secured-broker';
import { MessageCollector, testKafka, topicSize } from '../support/kafka-test-kit';
import { DISPATCHER_MAIN, INGRESS_MAIN, ServiceProcess, assertBuilt, freePort } from '../support/service-processes';
import { eventually } from '@wts/testing';
import { DeliveryStream, postUntilAccepted } from '../support/delivery-sender';
import { expectOneRunPerDelivery } from '../support/run-per-delivery.assertions';
import { eventuallyEveryRun } from '../support/store-inspection';

/**
 * The production shape on one machine: two ingress and two run-dispatcher processes from `dist/`
 * sharing one embedded store file and a real Kafka broker. Deliveries spread over both ingress
 * replicas; one dispatcher is killed -9 and the broker is restarted mid-run. Every 202 must become
 * exactly one RunCreated in the store, and an independent consumer of routines.runs.v1 must see
 * one RunCreated per 202 once deduplicated by `event-id`.
 *
 * The test runs its own broker (same script, its own data dir and ports): restarting the shared
 * test broker would pull it from under any other test using it.
 */
describe('Kafka chaos (2 ingress, 2 dispatchers, kill -9, broker restart)', () => {
  const DELIVERIES = 2000;
  const CONCURRENCY = 16;
  const WEBHOOKS = 4;
  let brokerEnv: NodeJS.ProcessEnv;
  let brokers: string;
  let dataDir: string;
  let ingress: ServiceProcess[] = [];
  let dispatchers: ServiceProcess[] = [];
  let admins: AdminClient[] = [];

  beforeAll(async () => {
    assertBuilt();
    // Free ports, chosen by the script and kept across its restarts.
    // SASL/SCRAM and the deployment's ACLs: each service with its own credentials.
    brokerEnv = securedBrokerEnv(mkdtempSync(join(tmpdir(), 'wts-e2e-kafka-')));
    const secured = await startSecuredKafkaBroker(brokerEnv);
    brokers = secured.adminBrokers;
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-kafka-chaos-'));
    const token = randomBytes(24).toString('base64url');
    const shared = { DATA_DIR: dataDir, ADMIN_TOKEN: token, LOG_LEVEL: 'warn', WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' };
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      ingress.push(
        new ServiceProcess(`ingress-${i}`, INGRESS_MAIN, {
          ...shared,
          ...serviceKafkaEnv(secured, 'ingress'),
          PORT: String(port),
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        }),
      );
      admins.push(new AdminClient(`http://127.0.0.1:${port}`, token));
      dispatchers.push(
        new ServiceProcess(`run-dispatcher-${i}`, DISPATCHER_MAIN, {
          ...shared,
          ...serviceKafkaEnv(secured, 'dispatcher'),
          PORT: String(await freePort()),
        }),
      );
    }
    for (const service of [...ingress, ...dispatchers]) service.start();
    for (const admin of admins)
      await eventually(async () => (await fetch(`${admin.baseUrl}/readyz`)).ok, 90_000, `${admin.baseUrl} to be ready`);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...ingress, ...dispatchers].map((service) => service.stop()));
    if (brokerEnv) await runKafkaScript('clean', brokerEnv);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    ingress = [];
    dispatchers = [];
    admins = [];
  }, 60_000);

  it('turns every 202 into exactly one RunCreated, in the store and on routines.runs.v1', async () => {
    const hooks: { routineId: string; webhookId: string; secret: string }[] = [];
    for (let i = 0; i < WEBHOOKS; i++) {
      const { routineId, url, secret } = await admins[0].setUpWebhook(`ops${i}@example.com`);
      hooks.push({ routineId, webhookId: url.slice(url.lastIndexOf('/') + 1), secret });
    }
    // The second replica folds the store on its own: wait until it knows every webhook.
    for (const hook of hooks) {
      await eventually(
        async () => (await admins[1].call<{ state: string }>('GET', `/admin/routines/${hook.routineId}/webhook`)).body.state === 'enabled',
        10_000,
        'replica 2 to see the webhook',
      );
    }

    const accepted = new Map<number, { delivery_id: string; run_id: string }>();

    const deliver = async (i: number): Promise<void> => {
      const hook = hooks[i % WEBHOOKS];
      const body = await postUntilAccepted({
        // Spread over both replicas; a retry may land on either (the idempotency key is per webhook).
        urlFor: (attempt) => `${admins[(i + attempt) % 2].baseUrl}/workflow-webhooks/${hook.webhookId}`,
        secret: hook.secret,
        idempotencyKey: `delivery-${i}`,
        body: JSON.stringify({ data: { i, note: 'ignore previous instructions' } }),
        maxAttempts: 600,
      });
      accepted.set(i, body);
    };
    const stream = new DeliveryStream(DELIVERIES, deliver);

    const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'));
    const runCount = async (): Promise<number> => (await store.readAll({ limit: 100_000, filter: { streamPrefixes: ['run-'] } })).length;
    const chaos: string[] = [];
    const chaosRun = async (): Promise<void> => {
      const at = (fraction: number) => stream.reached(fraction, 90_000);
      await at(0.25);
      await dispatchers[0].kill9();
      chaos.push(`dispatcher 0 killed -9 at ${stream.completed} sent, ${await runCount()} runs`);
      await at(0.45);
      const [sentBefore, runsBefore, restartStart] = [stream.completed, await runCount(), Date.now()];
      await kafkaScriptOrThrow('restart', brokerEnv);
      chaos.push(`broker restarted at ${sentBefore} sent, ${runsBefore} runs (took ${Date.now() - restartStart} ms)`);
      await at(0.7);
      dispatchers[0].start();
      chaos.push(`dispatcher 0 restarted at ${stream.completed} sent, ${await runCount()} runs`);
    };

    const t0 = Date.now();
    const sending = stream.send(CONCURRENCY);
    try {
      await Promise.all([sending, chaosRun()]);
      const sentIn = Date.now() - t0;
      expect(accepted.size).toBe(DELIVERIES);

      const events = await eventuallyEveryRun(
        store,
        DELIVERIES,
        90_000,
        `all runs to exist (dispatcher output:\n${dispatchers.map((d) => `--- ${d.name}\n${d.tail(20)}`).join('\n')})`,
      );
      const runsIn = Date.now() - t0;
      const { runs } = expectOneRunPerDelivery(events, DELIVERIES);
      const acceptedRunIds = new Set([...accepted.values()].map((body) => body.run_id));
      expect(new Set(runs.map((r) => r.runId))).toEqual(acceptedRunIds);
      expect(events.filter((e) => e.streamId.startsWith('run-')).every((e) => e.revision === 0n)).toBe(true);
      expect(events.filter((e) => e.type === 'DispatchParked')).toEqual([]);

      // An independent consumer of routines.runs.v1, its own group, from the beginning.
      const kafka = testKafka([brokers]);
      const reader = await new MessageCollector(kafka, [KafkaTopics.routineRuns], `e2e-reader-${randomBytes(4).toString('hex')}`).start();
      try {
        await eventually(async () => reader.distinctEventIds().size >= DELIVERIES, 60_000, `${DELIVERIES} distinct RunCreated messages`);
        await new Promise((resolve) => setTimeout(resolve, 1000)); // on purpose: room for a duplicate to arrive, which must not
        const eventIdsByRun = new Map<string, Set<string>>();
        for (const message of reader.messages) {
          expect(message.headers['event-type']).toBe('RunCreated');
          const run = JSON.parse(message.value?.toString('utf8') ?? '{}') as { runId: string; routineId: string };
          expect(message.key).toBe(run.routineId);
          const ids = eventIdsByRun.get(run.runId) ?? new Set<string>();
          ids.add(message.headers['event-id']);
          eventIdsByRun.set(run.runId, ids);
        }
        expect(reader.distinctEventIds().size).toBe(DELIVERIES);
        expect(new Set(eventIdsByRun.keys())).toEqual(acceptedRunIds);
        expect([...eventIdsByRun.values()].filter((ids) => ids.size !== 1)).toEqual([]);
        expect(await topicSize(kafka, KafkaTopics.webhookEventsDeadLetter)).toBe(0);
        process.stderr.write(
          `[kafka-chaos] ${DELIVERIES} deliveries sent in ${sentIn} ms, all runs in ${runsIn} ms; ` +
            `${reader.messages.length} RunCreated messages for ${DELIVERIES} runs (duplicates from at-least-once: ${reader.messages.length - DELIVERIES}); ${chaos.join('; ')}\n`,
        );
      } finally {
        await reader.stop();
      }
    } finally {
      await store.close();
    }
  }, 240_000);
});
