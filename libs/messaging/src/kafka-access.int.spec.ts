import { SqliteEventStore } from '@wts/event-store';
import { AclPermissionTypes, Partitioners, type Kafka } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKafkaScript } from '../../../test/support/kafka-broker';
import {
  READER_GROUP_PREFIX,
  aclBindings,
  clientAs,
  connectionAs,
  securedBrokerEnv,
  startSecuredKafkaBroker,
  type SecuredKafka,
  type TestKafkaUser,
} from '../../../test/support/kafka-secured-broker';
import { MessageCollector, appendDeliveries, appendRoutineWithWebhook, testKafka } from '../../../test/support/kafka-test-kit';
import { eventually } from '@wts/testing';
import { aclEntries, applyKafkaAccess } from './kafka-access.admin';
import { kafkaAccessPlan } from './kafka-access.plan';
import { createKafkaClient, silentMessagingLogger, type KafkaConnection } from './kafka-client.factory';
import { KafkaRelaySupervisor } from './kafka-relay.supervisor';
import { ensureTopics } from './kafka-topics.admin';
import { Relays, kafkaTopicNames } from './kafka-topics.contract';

/**
 * The brokers as a deployment runs them: SASL/SCRAM over TLS and the ACLs of kafkaAccessPlan, on a broker of
 * this suite's own. Only the ingress relay's principal writes webhooks.events.v1, only the
 * dispatcher's writes routines.runs.v1 (and parks), an internal consumer only reads
 * routines.runs.v1; anyone else — authenticated or not — is refused.
 */
describe('Kafka access: SASL/SCRAM and the deployment ACLs (real broker)', () => {
  const topics = kafkaTopicNames();
  let env: NodeJS.ProcessEnv;
  let kafka: SecuredKafka;
  let admin: Kafka;
  let dir: string;
  let store: SqliteEventStore;

  beforeAll(async () => {
    env = securedBrokerEnv(mkdtempSync(join(tmpdir(), 'wts-kafka-acl-')));
    kafka = await startSecuredKafkaBroker(env);
    admin = testKafka([kafka.adminBrokers], 'acl-admin');
    dir = mkdtempSync(join(tmpdir(), 'wts-kafka-acl-store-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'));
  }, 180_000);

  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (env) await runKafkaScript('clean', env);
  }, 60_000);

  async function produce(as: Kafka, topic: string, options: { idempotent?: boolean } = {}): Promise<void> {
    const producer = as.producer({
      idempotent: options.idempotent ?? false,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 1 },
    });
    try {
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: '{}' }] });
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  }

  const refusal = (run: () => Promise<unknown>): Promise<string> =>
    run().then(
      () => 'allowed',
      (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
    );

  it('the plan applied twice leaves each binding once, and every grant is an ALLOW for a named principal', async () => {
    const plan = kafkaAccessPlan({
      ingress: 'User:ingress',
      dispatcher: 'User:dispatcher',
      readers: [{ principal: 'User:reader', group: `${READER_GROUP_PREFIX}*` }],
    });
    expect(await applyKafkaAccess(admin, plan)).toBe(aclEntries(plan).length);
    const described = await aclBindings(kafka);
    const bindings = described.map((acl) => `${acl.resource}|${acl.principal}|${acl.operation}`);
    expect(bindings).toHaveLength(aclEntries(plan).length);
    expect(new Set(bindings).size).toBe(bindings.length);
    expect(described.every((acl) => acl.permission === AclPermissionTypes.ALLOW)).toBe(true);
  });

  it('the ingress relay, with its own credentials, creates its topics and forwards accepted deliveries to webhooks.events.v1', async () => {
    const hook = await appendRoutineWithWebhook(store);
    const [delivery] = await appendDeliveries(store, hook, 1);
    const relay = new KafkaRelaySupervisor({
      connection: connectionAs(kafka, 'ingress'),
      definition: Relays.ingressWebhooks,
      store,
      checkpoints: store.checkpoints(),
    });
    let collector: MessageCollector | undefined;
    try {
      // Resolves once its topics exist (created with its own grants) and its leadership group is joined.
      await relay.start();
      collector = await new MessageCollector(admin, [topics.webhookEvents], 'acl-collector').start();
      await eventually(
        async () => collector?.distinctEventIds(topics.webhookEvents).has(delivery.event.id) ?? false,
        30_000,
        'the relayed DeliveryAccepted',
      );
    } finally {
      await relay.stop();
      await collector?.stop();
    }
  }, 60_000);

  it("a producer without the ingress relay's credentials is refused on webhooks.events.v1: the dispatcher, a reader, a user with no grant, a wrong password", async () => {
    await ensureTopics(admin, topics);
    const attempts: [string, Kafka][] = [
      ...(['dispatcher', 'reader', 'intruder'] as TestKafkaUser[]).map((user): [string, Kafka] => [user, clientAs(kafka, user)]),
      ['ingress with a wrong password', clientAs(kafka, 'ingress', 'not-the-password')],
    ];
    const outcomes = await Promise.all(
      attempts.map(async ([who, client]) => [who, await refusal(() => produce(client, topics.webhookEvents))]),
    );
    expect(Object.fromEntries(outcomes)).toEqual({
      dispatcher: expect.stringMatching(/Topic authorization failed/i),
      reader: expect.stringMatching(/Topic authorization failed/i),
      intruder: expect.stringMatching(/Topic authorization failed/i),
      'ingress with a wrong password': expect.stringMatching(/SASL SCRAM SHA512 authentication failed/i),
    });
    // The relay's own credentials, with its idempotent producer, may.
    expect(await refusal(() => produce(clientAs(kafka, 'ingress'), topics.webhookEvents, { idempotent: true }))).toBe('allowed');
  }, 60_000);

  it("the SASL listener speaks TLS only, and a client checks the broker's certificate: without the CA, or without TLS, no connection", async () => {
    const check = async (connection: KafkaConnection): Promise<string> =>
      refusal(async () => {
        const client = createKafkaClient({
          connection,
          clientId: 'tls-check',
          logger: silentMessagingLogger,
          connectionTimeoutMs: 2000,
          requestTimeoutMs: 3000,
        }).admin({ retry: { retries: 0 } });
        try {
          await client.connect();
          await client.describeCluster();
        } finally {
          await client.disconnect().catch(() => undefined);
        }
      });
    const { ca: _ca, ...withoutCa } = connectionAs(kafka, 'ingress');
    expect(await check(connectionAs(kafka, 'ingress'))).toBe('allowed');
    // The system's authorities do not know the test CA.
    expect(await check(withoutCa)).toMatch(/certificate/i);
    expect(await check({ ...withoutCa, ssl: false })).not.toBe('allowed');
  }, 60_000);

  it('only the dispatcher writes routines.runs.v1 and the dead-letter topic', async () => {
    await ensureTopics(admin, topics);
    expect(await refusal(() => produce(clientAs(kafka, 'dispatcher'), topics.routineRuns, { idempotent: true }))).toBe('allowed');
    expect(await refusal(() => produce(clientAs(kafka, 'dispatcher'), topics.webhookEventsDeadLetter, { idempotent: true }))).toBe(
      'allowed',
    );
    for (const user of ['ingress', 'reader', 'intruder'] as TestKafkaUser[]) {
      expect(await refusal(() => produce(clientAs(kafka, user), topics.routineRuns))).toMatch(/Topic authorization failed/i);
      expect(await refusal(() => produce(clientAs(kafka, user), topics.webhookEventsDeadLetter))).toMatch(/Topic authorization failed/i);
    }
  }, 60_000);

  it('an internal consumer reads routines.runs.v1 in its own groups, and nothing else', async () => {
    await ensureTopics(admin, topics);
    await produce(clientAs(kafka, 'dispatcher'), topics.routineRuns, { idempotent: true });
    const reader = clientAs(kafka, 'reader');
    const read = async (topic: string, groupId: string): Promise<void> => {
      const consumer = reader.consumer({ groupId, retry: { retries: 0 } });
      let received: (() => void) | undefined;
      const got = new Promise<void>((resolve) => (received = resolve));
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        const failed = new Promise<never>((_resolve, reject) => consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error)));
        await consumer.run({ eachMessage: async () => received?.() });
        await Promise.race([
          got,
          failed,
          new Promise((_resolve, reject) => setTimeout(() => reject(new Error('nothing read in 20 s')), 20_000)),
        ]);
      } finally {
        await consumer.disconnect().catch(() => undefined);
      }
    };
    expect(await refusal(() => read(topics.routineRuns, `${READER_GROUP_PREFIX}analytics`))).toBe('allowed');
    // Another group: the broker answers GROUP_AUTHORIZATION_FAILED, which kafkajs reports as "Failed to
    // find group coordinator" (its broker pool swallows the cause); the same reader found it above.
    expect(await refusal(() => read(topics.routineRuns, 'run-dispatcher'))).toMatch(
      /Failed to find group coordinator|authorization failed/i,
    );
    expect(await refusal(() => read(topics.webhookEvents, `${READER_GROUP_PREFIX}analytics`))).toMatch(/authorization failed/i);
    expect(await refusal(() => produce(reader, topics.routineRuns))).toMatch(/Topic authorization failed/i);
  }, 90_000);
});
