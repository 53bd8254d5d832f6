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
import { uniqueName } from './kafka-broker';
import { MessageCollector, appendRoutineWithWebhook, deleteTopics, testKafka, type CatalogFixture } from './kafka-test-kit';

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

  async close(): Promise<void> {
    await Promise.all(this.consumers.splice(0).map((consumer) => consumer.stop()));
    await Promise.all(this.collectors.splice(0).map((collector) => collector.stop()));
    await this.producer.disconnect();
    await deleteTopics(this.kafka, Object.values(this.topics));
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
