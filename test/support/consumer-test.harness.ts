import { SqliteEventStore } from '@wts/event-store';
import {
  DEFAULT_CONSUMER_TUNING,
  DeliveryAcceptedMessage,
  WebhookEventsConsumer,
  createKafkaClient,
  ensureTopics,
  kafkaTopicNames,
  silentMessagingLogger,
  type InboundHandler,
  type KafkaTopicNames,
  type WebhookEventsConsumerSettings,
} from '@wts/messaging';
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@wts/testing';
import { kafkaBrokers, uniqueName } from './kafka-broker';
import { useClosable } from './per-test.kit';
import {
  MessageCollector,
  appendRoutineWithWebhook,
  committedOffsets,
  deleteTopics,
  testKafka,
  type CatalogFixture,
} from './kafka-test-kit';

/** What a test may set on a consumer besides its handler and tuning. */
export type ConsumerTestExtras = Partial<Pick<WebhookEventsConsumerSettings, 'supportedSchemaVersions' | 'logger' | 'recordPark'>>;

/**
 * What a test of the dispatcher's consumer needs against the real broker: an event store in a
 * temporary directory holding a routine and its webhook, topics of its own (one partition for the
 * events, so order is known), its group, a producer; consumers made as the dispatcher makes them,
 * with short test timings. `close()` stops and removes all of it.
 */
export class ConsumerTestBed {
  private readonly consumers: WebhookEventsConsumer[] = [];
  private readonly collectors: MessageCollector[] = [];

  private constructor(
    readonly brokers: readonly string[],
    readonly kafka: Kafka,
    readonly dir: string,
    readonly store: SqliteEventStore,
    readonly topics: KafkaTopicNames,
    readonly groupId: string,
    readonly producer: Producer,
    readonly hook: CatalogFixture,
  ) {}

  static async open(brokers: readonly string[], name: string): Promise<ConsumerTestBed> {
    const kafka = testKafka(brokers);
    const dir = mkdtempSync(join(tmpdir(), `wts-${name}-`));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    const unique = uniqueName(name);
    const topics = kafkaTopicNames(`${unique}.`);
    await ensureTopics(kafka, topics, { webhookEvents: 1 });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const hook = await appendRoutineWithWebhook(store);
    return new ConsumerTestBed(brokers, kafka, dir, store, topics, `${unique}-run-dispatcher`, producer, hook);
  }

  /** A consumer of the group handling DeliveryAccepted with `handler` (not started); stopped by close(). */
  consumer(
    handler: InboundHandler,
    tuning: Partial<typeof DEFAULT_CONSUMER_TUNING> = {},
    extra: ConsumerTestExtras = {},
  ): WebhookEventsConsumer {
    const created = new WebhookEventsConsumer({
      kafka: createKafkaClient({ connection: { brokers: [...this.brokers] }, clientId: this.groupId, logger: silentMessagingLogger }),
      topics: this.topics,
      groupId: this.groupId,
      handlers: new Map([[DeliveryAcceptedMessage.eventType, handler]]),
      tuning: { ...DEFAULT_CONSUMER_TUNING, sessionTimeoutMs: 6000, retryInitialDelayMs: 20, ...tuning },
      ...extra,
      logger: extra.logger ?? silentMessagingLogger,
    });
    this.consumers.push(created);
    return created;
  }

  /** Everything on the dead-letter topic, read by a group of its own from the beginning. */
  async deadLetters(): Promise<MessageCollector> {
    const collector = new MessageCollector(this.kafka, [this.topics.webhookEventsDeadLetter], `${this.groupId}-dlq-reader`);
    this.collectors.push(collector);
    return collector.start();
  }

  /** The dead-letter topic (as deadLetters() reads it) once it holds `count` messages. */
  async waitForDeadLetters(count: number, what: string): Promise<MessageCollector> {
    const dlq = await this.deadLetters();
    await eventually(async () => dlq.messages.length >= count, 20_000, what);
    return dlq;
  }

  /** The group's committed offset on the events topic's one partition (-1 when none). */
  async committed(): Promise<number> {
    return (await committedOffsets(this.kafka, this.groupId, this.topics.webhookEvents)).get(0) ?? -1;
  }

  /** Waits until the group's committed offset on the events topic is `offset`. */
  async waitForCommitted(offset: number, timeoutMs: number, what: string): Promise<void> {
    await eventually(async () => (await this.committed()) === offset, timeoutMs, what);
  }

  async close(): Promise<void> {
    await Promise.all(this.consumers.splice(0).map((consumer) => consumer.stop()));
    await Promise.all(this.collectors.splice(0).map((collector) => collector.stop()));
    await this.producer.disconnect();
    await deleteTopics(this.kafka, Object.values(this.topics));
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Call it in a describe: a bed opened (on the test broker) before each test and closed after it; `bed()` is the current one. */
export function useConsumerTestBed(name: string): () => ConsumerTestBed {
  const brokers = kafkaBrokers();
  return useClosable('consumer test bed', () => ConsumerTestBed.open(brokers, name));
}
