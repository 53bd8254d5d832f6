/**
 * `replay --to kafka` against the real test broker (jest's globalSetup starts it): the replayed
 * messages are the relay's own — same topic, partition, key, value and headers (`event-id`
 * included) in store order — so consumers dedupe them. Each run uses its own topic prefix.
 */
import { Relays, routeEvent, KafkaRelaySupervisor, type KafkaTopicNames } from '@wts/messaging';
import { toAppend } from '@wts/application';
import { Streams, schemaVersionOf, type DeliveryAccepted, type RunCreated } from '@wts/contracts';
import { runFraming } from '@wts/domain';
import type { RecordedEvent } from '@wts/event-store';
import { ConfigResourceTypes } from 'kafkajs';
import { CloudEvent, Kafka as CloudEventsKafka, type KafkaMessage } from 'cloudevents';
import { randomUUID } from 'node:crypto';
import { uniqueName } from '../../../test/support/kafka-broker';
import { MessageCollector, type CollectedMessage } from '../../../test/support/kafka-test-kit';
import { useFreshTopics } from '../../../test/support/kafka-topics.kit';
import { eventually } from '@wts/testing';
import { cli, summaryOf } from './cli-harness';
import { createAllRuns, seedStore, type SeededStore, eventsBesidesOperatorActions } from './cli-fixtures';

jest.setTimeout(120_000);

describe('replay --to kafka (real broker)', () => {
  let seeded: SeededStore;
  const relays: KafkaRelaySupervisor[] = [];
  const collectors: MessageCollector[] = [];

  beforeAll(async () => {
    seeded = await seedStore();
    await createAllRuns(seeded);
  });

  afterAll(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    await Promise.all(collectors.splice(0).map((collector) => collector.stop()));
    await seeded?.app.close();
  });

  // After the hooks above: the topics are deleted once the relays and readers have stopped.
  const relayTo = useFreshTopics('cli-relay', 'all');
  const replayTo = useFreshTopics('cli-replay', 'all');

  async function collect(topics: KafkaTopicNames): Promise<MessageCollector> {
    const collector = await new MessageCollector(
      relayTo.kafka,
      [topics.webhookEvents, topics.routineRuns],
      uniqueName('cli-reader'),
    ).start();
    collectors.push(collector);
    return collector;
  }

  async function published(): Promise<RecordedEvent[]> {
    return (await seeded.app.allEvents()).filter((event) => routeEvent(event) !== undefined);
  }

  /** Per partition, the event ids in offset order. */
  function order(messages: readonly CollectedMessage[]): Map<string, string[]> {
    const byPartition = new Map<string, CollectedMessage[]>();
    for (const message of messages) {
      const key = `${message.topic.slice(message.topic.indexOf('.') + 1)}#${message.partition}`;
      byPartition.set(key, [...(byPartition.get(key) ?? []), message]);
    }
    return new Map(
      [...byPartition].map(([key, list]) => [
        key,
        list.sort((a, b) => Number(a.offset) - Number(b.offset)).map((m) => m.headers['event-id']),
      ]),
    );
  }

  it('dry run connects to nothing and creates no topic', async () => {
    const summary = summaryOf(
      await cli(['replay', '--category', 'delivery', '--to', 'kafka', '--dry-run', '--topic-prefix', replayTo.prefix, '--json'], {
        ...seeded.env,
        KAFKA_BROKERS: relayTo.brokers.join(','),
      }),
    );
    expect(summary).toMatchObject({ dry_run: true, replayed: 0, would_replay: seeded.deliveryIds.length });
    const admin = relayTo.kafka.admin();
    await admin.connect();
    try {
      expect((await admin.listTopics()).filter((topic) => topic.startsWith(replayTo.prefix))).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  });

  it('re-publishes what the relay published: same topic, partition, key, value and headers, in store order', async () => {
    const expected = await published();
    expect(expected.length).toBe(seeded.hooks.length + 2 * seeded.deliveryIds.length);

    // The relays of both services, as the services run them, to topics of their own.
    for (const definition of [Relays.ingressWebhooks, Relays.dispatcherRuns]) {
      const relay = new KafkaRelaySupervisor({
        connection: { brokers: relayTo.brokers },
        definition,
        store: seeded.app.store,
        checkpoints: seeded.app.store.checkpoints(),
        topics: relayTo.topics,
        leadershipGroupId: uniqueName(`cli-lead-${definition.name}`),
      });
      relays.push(relay);
      await relay.start();
    }
    const relayed = await collect(relayTo.topics);
    await eventually(async () => relayed.messages.length >= expected.length, 60_000, 'the relays to publish');

    const started = Date.now();
    const result = await cli(
      [
        'replay',
        '--category',
        'webhook',
        '--category',
        'delivery',
        '--category',
        'run',
        '--to',
        'kafka',
        '--topic-prefix',
        replayTo.prefix,
        '--json',
      ],
      { ...seeded.env, KAFKA_BROKERS: relayTo.brokers.join(',') },
    );
    const summary = summaryOf(result);
    process.stderr.write(`[cli] replay of ${summary.replayed} events to Kafka took ${Date.now() - started} ms\n`);
    expect(summary).toMatchObject({
      target: 'kafka',
      selected: expected.length,
      replayed: expected.length,
      skipped: 0,
      created: 0,
      already_created: 0,
      parked: 0,
    });

    const replayed = await collect(replayTo.topics);
    await eventually(async () => replayed.messages.length >= expected.length, 30_000, 'the replayed messages');
    expect(replayed.messages).toHaveLength(expected.length);
    expect(relayed.messages).toHaveLength(expected.length);

    const strip = (message: CollectedMessage): object => ({
      role: message.topic.slice(message.topic.indexOf('.') + 1),
      partition: message.partition,
      key: message.key,
      value: message.value?.toString('utf8'),
      headers: message.headers,
    });
    const byId = (messages: readonly CollectedMessage[]): Map<string, object> =>
      new Map(messages.map((message) => [message.headers['event-id'], strip(message)]));
    expect(byId(replayed.messages)).toEqual(byId(relayed.messages));
    expect(order(replayed.messages)).toEqual(order(relayed.messages));

    // Keys and headers from the contract, in store order per key.
    for (const event of expected) {
      const message = replayed.messages.find((m) => m.headers['event-id'] === event.id);
      const data = event.data as { webhookId?: string; routineId?: string };
      expect(message?.key).toBe(event.type === 'RunCreated' ? data.routineId : data.webhookId);
      expect(message?.headers).toMatchObject({
        'event-type': event.type,
        'event-id': event.id,
        // A run goes out as consumers have always read it (version 2, its message framed from the payload store).
        'schema-version': event.type === 'RunCreated' ? '2' : String(schemaVersionOf(event.type)),
        'stream-id': event.streamId,
        position: `${event.position.commit}/${event.position.prepare}`,
      });
      expect(message?.topic).toBe(event.type === 'RunCreated' ? replayTo.topics.routineRuns : replayTo.topics.webhookEvents);
      // A CloudEvent (binary mode) as the relay's own: the same id, type and time on every copy.
      const asKafkaMessage: KafkaMessage<Buffer | null> = {
        key: message!.key!,
        value: message!.value,
        body: message!.value,
        headers: message!.headers,
      };
      const cloudEvent = CloudEventsKafka.toEvent(asKafkaMessage) as CloudEvent<unknown>;
      expect(cloudEvent.validate()).toBe(true);
      expect(cloudEvent).toMatchObject({ id: event.id, type: `com.wts.${event.type}`, time: event.createdAt.toISOString() });
      if (event.type === 'RunCreated') expect(message?.value?.toString('utf8')).toContain('<<<UNTRUSTED_PAYLOAD_BEGIN delivery=');
      else expect(message?.value?.toString('utf8')).not.toContain('12345678901234567890');
    }
    const deliveriesOfFirstHook = expected
      .filter((event) => event.type === 'DeliveryAccepted' && (event.data as { webhookId: string }).webhookId === seeded.hooks[0].webhookId)
      .map((event) => event.id);
    const firstHookMessages = replayed.messages
      .filter((m) => m.key === seeded.hooks[0].webhookId && m.headers['event-type'] === 'DeliveryAccepted')
      .sort((a, b) => Number(a.offset) - Number(b.offset))
      .map((m) => m.headers['event-id']);
    expect(firstHookMessages).toEqual(deliveriesOfFirstHook);
  });

  it('a second replay re-sends the same event ids (consumers dedupe), and creates nothing in the store', async () => {
    const before = await eventsBesidesOperatorActions(seeded.app);
    const reader = await collect(replayTo.topics);
    const deliveries = seeded.deliveryIds.length;
    await eventually(async () => reader.messages.length >= (await published()).length, 30_000, 'the first replay');
    const idsBefore = reader.distinctEventIds(replayTo.topics.webhookEvents);

    const summary = summaryOf(
      await cli(['replay', '--category', 'delivery', '--to', 'kafka', '--topic-prefix', replayTo.prefix, '--json'], {
        ...seeded.env,
        KAFKA_BROKERS: relayTo.brokers.join(','),
      }),
    );
    expect(summary).toMatchObject({ replayed: deliveries, skipped: 0 });
    await eventually(
      async () => reader.of(replayTo.topics.webhookEvents).length >= idsBefore.size + deliveries,
      30_000,
      'the second replay',
    );
    expect(reader.distinctEventIds(replayTo.topics.webhookEvents)).toEqual(idsBefore);
    expect(await eventsBesidesOperatorActions(seeded.app)).toBe(before);
  });

  it('an unreachable broker fails with exit code 1 and says so', async () => {
    const result = await cli(['replay', '--category', 'delivery', '--to', 'kafka', '--topic-prefix', replayTo.prefix], {
      ...seeded.env,
      KAFKA_BROKERS: '127.0.0.1:1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach Kafka at 127.0.0.1:1');
  });
});

describe('replay --to kafka of large events (real broker, default message.max.bytes)', () => {
  let seeded: SeededStore;
  const collectors: MessageCollector[] = [];

  beforeAll(async () => {
    seeded = await seedStore();
  });

  afterAll(async () => {
    await Promise.all(collectors.splice(0).map((collector) => collector.stop()));
    await seeded?.app.close();
  });

  // After the hooks above: the topics are deleted once the reader has stopped.
  const replayTo = useFreshTopics('cli-large', 'all');

  /**
   * Accepted deliveries of the first webhook with a text payload of `payloadBytes` and their runs,
   * appended directly: a run's message carries its payload framed (the delivery's carries none).
   */
  async function appendLarge(count: number, payloadBytes: number): Promise<void> {
    const hook = seeded.hooks[0];
    const [first] = (await seeded.app.allEvents()).filter(
      (event) => event.type === 'DeliveryAccepted' && (event.data as { webhookId: string }).webhookId === hook.webhookId,
    );
    const template = first.data as DeliveryAccepted['data'];
    for (let i = 0; i < count; i++) {
      const deliveryId = `dlv_large${randomUUID().replace(/-/g, '')}`;
      const text = `${i} `.padEnd(payloadBytes, 'x');
      const data: DeliveryAccepted['data'] = {
        ...template,
        deliveryId,
        runId: `run_large${randomUUID().replace(/-/g, '')}`,
        idempotencyKey: null,
        payloadFormat: 'text',
        payloadBytes: text.length,
        contentType: 'text/plain',
      };
      const context = { correlationId: deliveryId, causationId: deliveryId, traceparent: '' };
      const payload = {
        key: deliveryId,
        webhookId: data.webhookId,
        format: 'text' as const,
        text,
        receivedAt: Date.now(),
        expiresAt: Date.now() + 86_400_000,
      };
      const delivery = toAppend([{ type: 'DeliveryAccepted', data }], context, () => randomUUID());
      const appended = await seeded.app.store.append(Streams.delivery(deliveryId), delivery, 'no_stream', { payload });
      if (appended.kind !== 'appended') throw new Error('delivery not appended');
      const routine = { name: 'r', tools: [], instructions: 'i', mode: 'supervised' as const };
      const { runId, routineId, webhookId, triggerAccount } = data;
      const run: RunCreated = {
        type: 'RunCreated',
        data: {
          runId,
          routineId,
          webhookId,
          deliveryId,
          triggerAccount,
          routine,
          framing: runFraming(data),
          status: 'created',
          createdAt: data.receivedAt,
        },
      };
      const result = await seeded.app.store.append(
        Streams.run(runId),
        toAppend([run], context, () => randomUUID()),
        'no_stream',
      );
      if (result.kind !== 'appended') throw new Error('run not appended');
    }
  }

  it('sends the runs of 600 × 2 KiB deliveries and of a ~2 MB one in requests capped by bytes, to topics that admit 16 MiB messages', async () => {
    await appendLarge(600, 2048);
    await appendLarge(1, 2 * 1024 * 1024);
    const runs = (await seeded.app.allEvents()).filter((event) => event.type === 'RunCreated');
    expect(runs.length).toBe(601);

    const started = Date.now();
    const result = await cli(['replay', '--category', 'run', '--to', 'kafka', '--topic-prefix', replayTo.prefix, '--json'], {
      ...seeded.env,
      KAFKA_BROKERS: replayTo.brokers.join(','),
    });
    const summary = summaryOf(result);
    process.stderr.write(`[cli] replay of ${summary.replayed} events (≈ 3.4 MB) to Kafka took ${Date.now() - started} ms\n`);
    expect(summary).toMatchObject({ replayed: runs.length, skipped: 0 });

    const { kafka, topics } = replayTo;
    const admin = kafka.admin();
    await admin.connect();
    try {
      const described = await admin.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topics.routineRuns, configNames: ['max.message.bytes'] }],
        includeSynonyms: false,
      });
      expect(described.resources[0].configEntries[0].configValue).toBe(String(16 * 1024 * 1024));
    } finally {
      await admin.disconnect();
    }
    const reader = await new MessageCollector(kafka, [topics.routineRuns], uniqueName('cli-large-reader')).start();
    collectors.push(reader);
    await eventually(async () => reader.messages.length >= runs.length, 60_000, 'the replayed messages');
    expect(reader.messages).toHaveLength(runs.length);
    const inOrder = [...reader.messages].sort((a, b) => Number(a.offset) - Number(b.offset)).map((m) => m.headers['event-id']);
    expect(inOrder).toEqual(runs.map((event) => event.id));
    // Each run's message is framed from its payload, as the relay frames it (schema version 2).
    const size = (m: CollectedMessage): number => m.value?.length ?? 0;
    const largest = reader.messages.reduce((a, b) => (size(a) >= size(b) ? a : b));
    expect(largest.headers['schema-version']).toBe('2');
    expect(size(largest)).toBeGreaterThan(2 * 1024 * 1024);
    expect((JSON.parse(String(largest.value)) as { initialMessage: string }).initialMessage).toContain('xxxxxxxx');
  });
});
