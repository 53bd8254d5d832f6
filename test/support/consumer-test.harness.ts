import {
  DEFAULT_CONSUMER_TUNING,
  DeliveryAcceptedMessage,
  WebhookEventsConsumer,
  createKafkaClient,
  ensureTopics,
  silentMessagingLogger,
  type InboundHandler,
  type WebhookEventsConsumerSettings,
} from '@wts/messaging';
import { Partitioners, type Producer } from 'kafkajs';
import { eventually } from '@wts/testing';
import { kafkaBrokers } from './kafka-broker';
import { KafkaStoreBed } from './kafka-store-bed.harness';
import { MessageCollector, appendRoutineWithWebhook, committedOffsets, type CatalogFixture } from './kafka-test-kit';
import { useClosable } from './per-test.kit';

/** What a test may set on a consumer besides its handler and tuning. */
export type ConsumerTestExtras = Partial<Pick<WebhookEventsConsumerSettings, 'supportedSchemaVersions' | 'logger' | 'recordPark'>>;

/**
 * What a test of the dispatcher's consumer needs against the real broker: a store holding a routine
 * and its webhook, topics of its own (a KafkaStoreBed; one partition for the events, so order is
 * known), its group, a producer; consumers made as the dispatcher makes them, with short test
 * timings. `close()` stops and removes all of it.
 */
export class ConsumerTestBed extends KafkaStoreBed {
  readonly groupId = `${this.name}-run-dispatcher`;
  readonly producer: Producer = this.kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  private catalog: CatalogFixture | undefined;

  static async open(brokers: readonly string[], name: string): Promise<ConsumerTestBed> {
    const bed = new ConsumerTestBed(brokers, name);
    await ensureTopics(bed.kafka, bed.topics, { webhookEvents: 1 });
    await bed.producer.connect();
    bed.catalog = await appendRoutineWithWebhook(bed.store);
    return bed;
  }

  /** The routine and its enabled webhook in the store. */
  get hook(): CatalogFixture {
    if (!this.catalog) throw new Error('the bed is not open yet');
    return this.catalog;
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
    return this.stoppedOnClose(created);
  }

  /** Everything on the dead-letter topic, read by a group of its own from the beginning. */
  async deadLetters(): Promise<MessageCollector> {
    return this.stoppedOnClose(
      new MessageCollector(this.kafka, [this.topics.webhookEventsDeadLetter], `${this.groupId}-dlq-reader`),
    ).start();
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

  protected override async release(): Promise<void> {
    await this.producer.disconnect();
  }
}

/** Call it in a describe: a bed opened (on the test broker) before each test and closed after it; `bed()` is the current one. */
export function useConsumerTestBed(name: string): () => ConsumerTestBed {
  const brokers = kafkaBrokers();
  return useClosable('consumer test bed', () => ConsumerTestBed.open(brokers, name));
}
