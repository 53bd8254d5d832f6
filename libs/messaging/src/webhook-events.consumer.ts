import { Partitioners, type Consumer, type EachBatchPayload, type Kafka, type KafkaMessage, type Producer } from 'kafkajs';
import { Signal, describeError, nextDelay, sleep } from '@wts/application';
import { toConsumerFailure, type ConsumerFailure } from './consumer-failure.errors';
import type { MessagingLogger } from './kafka-client.factory';
import { MESSAGE_SCHEMAS, MessageDecodeError, UnsupportedSchemaVersionError, decodeMessage, headerText, type InboundEvent } from './kafka-message.codec';
import { KafkaHeaders, SUPPORTED_SCHEMA_VERSIONS, type KafkaTopicNames } from './kafka-topics.contract';
import type { ParkRecord, ParkRecorder } from './park-record';

/** Handles one decoded event; throws (a ConsumerFailure, ideally) when it could not. */
export type InboundHandler = (event: InboundEvent) => Promise<void>;

export interface ConsumerTuning {
  /** A crashed member's partitions move to the others after this long. */
  readonly sessionTimeoutMs: number;
  /** Below a third of the session; also while a handler runs, so a slow handler does not cost the membership. */
  readonly heartbeatIntervalMs: number;
  readonly partitionsConsumedConcurrently: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** Failures classified "park" are retried this many times in all before the message is parked. */
  readonly attemptsBeforeParking: number;
  /**
   * Messages of one partition handled at once (their runs share the store's commits); their offsets
   * are committed together, once every one of them is done with.
   */
  readonly messagesInFlight: number;
  /** While a slice waits on a message being retried, what is done before it is committed this often. */
  readonly commitEveryMs: number;
}

export const DEFAULT_CONSUMER_TUNING: ConsumerTuning = {
  sessionTimeoutMs: 10_000,
  heartbeatIntervalMs: 1000,
  partitionsConsumedConcurrently: 4,
  retryInitialDelayMs: 100,
  retryMaxDelayMs: 5000,
  attemptsBeforeParking: 5,
  messagesInFlight: 256,
  commitEveryMs: 500,
};

export interface WebhookEventsConsumerSettings {
  readonly kafka: Kafka;
  readonly topics: KafkaTopicNames;
  readonly groupId: string;
  /** By event type; messages of other types are acknowledged and skipped. */
  readonly handlers: ReadonlyMap<string, InboundHandler>;
  readonly logger: MessagingLogger;
  readonly tuning: ConsumerTuning;
  /** Called once a message is on the dead-letter topic (metrics). */
  readonly onDeadLetter?: () => void;
  /** SUPPORTED_SCHEMA_VERSIONS unless given (a test plays an upgraded build this way). */
  readonly supportedSchemaVersions?: readonly number[];
  /**
   * Records every park durably besides the dead-letter topic (the dispatcher: in the event store,
   * which keeps it as long as the deliveries; the topic's retention is no guarantee).
   */
  readonly recordPark?: ParkRecorder;
}

/**
 * The dispatcher's consumer of webhooks.events.v1. Offsets are resolved and committed by hand,
 * message by message, only after the handler succeeded (for DeliveryAccepted: the run exists).
 * It heartbeats while a handler runs, however long that takes.
 * - transient failure, or a schema version newer than this build reads (a rolling deploy) →
 *   retried in place with backoff, heartbeating so the member stays in the group; abandoned
 *   (uncommitted, redelivered later) when the batch goes stale or the consumer stops;
 * - a message that can never be decoded (not JSON, missing fields or headers, a schema version
 *   that is not a positive integer) or keeps failing with a permanent error → produced to the
 *   dead-letter topic with its error, then resolved: never silently dropped, never blocking the
 *   partition.
 * Redelivery after a rebalance or a crash is harmless: handlers are idempotent.
 */
export class WebhookEventsConsumer {
  private consumer: Consumer | undefined;
  private producer: Producer | undefined;
  private readonly stopRequested = new Signal();
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly settings: WebhookEventsConsumerSettings) {
    const { sessionTimeoutMs, heartbeatIntervalMs } = settings.tuning;
    if (heartbeatIntervalMs * 3 > sessionTimeoutMs) throw new Error(`heartbeatIntervalMs (${heartbeatIntervalMs}) must be at most a third of sessionTimeoutMs (${sessionTimeoutMs})`);
    for (const eventType of settings.handlers.keys()) {
      if (!MESSAGE_SCHEMAS[eventType]) throw new Error(`no message schema for handled event type ${eventType}`);
    }
  }

  /** Connects the dead-letter producer, joins the group and starts consuming. Throws if Kafka is unreachable. */
  async start(): Promise<void> {
    const producer = this.settings.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    this.producer = producer;
    await producer.connect();
    await this.join();
  }

  /** Leaves the group after the message in flight; its offset is committed only if it completed. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.stopRequested.notify();
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
  }

  private async join(): Promise<void> {
    const { kafka, groupId, topics, tuning } = this.settings;
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: tuning.sessionTimeoutMs,
      heartbeatInterval: tuning.heartbeatIntervalMs,
      maxWaitTimeInMs: 500,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.settings.logger.warn({ groupId, restart: payload.restart, err: describeError(payload.error) }, 'webhook events consumer crashed');
      if (!payload.restart && consumer === this.consumer) this.restartLater();
    });
    try {
      await consumer.connect();
      // A new group starts at the beginning: deliveries relayed before it existed are not skipped.
      await consumer.subscribe({ topics: [topics.webhookEvents], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: tuning.partitionsConsumedConcurrently,
        eachBatch: (payload) => this.eachBatch(payload),
      });
    } catch (error) {
      if (this.consumer === consumer) this.consumer = undefined;
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  }

  /** kafkajs gives up on non-retriable errors: start over with a new member. */
  private restartLater(delay = 1000): void {
    if (this.stopped) return;
    this.restartTimer = setTimeout(() => {
      void (async () => {
        const crashed = this.consumer;
        this.consumer = undefined;
        await crashed?.disconnect().catch(() => undefined);
        if (this.stopped) return;
        await this.join().catch((error: unknown) => {
          this.settings.logger.warn({ err: describeError(error) }, 'webhook events consumer restart failed; retrying');
          this.restartLater(nextDelay(delay, 10_000));
        });
      })();
    }, delay);
  }

  /**
   * A fetched batch, a slice of `messagesInFlight` messages at a time, handled concurrently.
   * Offsets are resolved strictly in order, as the leading messages are done with, and committed
   * when the slice ends (and every `commitEveryMs` while a message of it is still being retried).
   * A message abandoned (a rebalance or a stop during its retries) stops the batch: nothing after it
   * is committed, so it and what follows come again.
   */
  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const size = this.settings.tuning.messagesInFlight;
    // With autoCommit off, commitOffsetsIfNecessary() alone never commits: pass the offsets.
    const commit = (): Promise<void> => payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
    for (let start = 0; start < batch.messages.length; start += size) {
      if (!payload.isRunning() || payload.isStale()) return;
      const slice = batch.messages.slice(start, start + size);
      const finished = slice.map(() => false);
      let resolved = 0;
      const committer = setInterval(() => void commit().catch(() => undefined), this.settings.tuning.commitEveryMs);
      try {
        await Promise.all(
          slice.map(async (message, index) => {
            if (!(await this.process(batch.topic, batch.partition, message, payload))) return;
            finished[index] = true;
            while (resolved < slice.length && finished[resolved]) payload.resolveOffset(slice[resolved++].offset);
          }),
        );
      } finally {
        clearInterval(committer);
      }
      if (resolved > 0) await commit();
      if (resolved < slice.length) return;
      await payload.heartbeat();
    }
  }

  /** True when the message is done with (handled, skipped or parked); false when abandoned. */
  private async process(topic: string, partition: number, message: KafkaMessage, payload: EachBatchPayload): Promise<boolean> {
    const location = { topic, partition };
    const eventType = headerText(message.headers, KafkaHeaders.eventType);
    if (eventType === undefined) return this.park(location, message, { disposition: 'park', code: 'undecodable', message: `header "${KafkaHeaders.eventType}" is missing` }, payload);
    const handler = this.settings.handlers.get(eventType);
    if (!handler) return true;
    let event: InboundEvent;
    let delay = this.settings.tuning.retryInitialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        event = decodeMessage(location, message, MESSAGE_SCHEMAS[eventType], { supportedSchemaVersions: this.settings.supportedSchemaVersions ?? SUPPORTED_SCHEMA_VERSIONS });
        break;
      } catch (error) {
        if (error instanceof MessageDecodeError) return this.park(location, message, { disposition: 'park', code: 'undecodable', message: error.message }, payload);
        if (!(error instanceof UnsupportedSchemaVersionError)) throw error;
        // Not poison: a newer build reads it. The partition waits here until an upgraded member takes it over.
        this.settings.logger.warn(
          { topic, partition, offset: message.offset, eventId: headerText(message.headers, KafkaHeaders.eventId), schemaVersion: error.schemaVersion, supported: error.supported, attempt },
          `message of schema version ${error.schemaVersion} is newer than this build reads (${error.supported.join(', ')}): its partition waits, retrying in place, until an upgraded member takes it over`,
        );
        if (!(await this.waitHeartbeating(payload, delay))) return false;
        delay = nextDelay(delay, this.settings.tuning.retryMaxDelayMs);
      }
    }
    delay = this.settings.tuning.retryInitialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.heartbeatingWhile(payload, handler(event));
        return true;
      } catch (error) {
        const failure = toConsumerFailure(error);
        if (failure.disposition === 'park' && attempt >= this.settings.tuning.attemptsBeforeParking) return this.park(location, message, failure, payload);
        this.settings.logger.warn({ topic, partition, offset: message.offset, eventId: event.eventId, attempt, code: failure.code, err: failure.message }, 'handling failed; retrying in place');
        if (!(await this.waitHeartbeating(payload, delay))) return false;
        delay = nextDelay(delay, this.settings.tuning.retryMaxDelayMs);
      }
    }
  }

  /** Records the park (recordPark), then produces the original message, with its error, to the dead-letter topic and waits for the ack. */
  private async park(location: { topic: string; partition: number }, message: KafkaMessage, failure: ConsumerFailure, payload: EachBatchPayload): Promise<boolean> {
    const headers = {
      ...message.headers,
      [KafkaHeaders.error]: failure.message,
      [KafkaHeaders.errorCode]: failure.code,
      [KafkaHeaders.originalTopic]: location.topic,
      [KafkaHeaders.originalPartition]: String(location.partition),
      [KafkaHeaders.originalOffset]: message.offset,
    };
    let delay = this.settings.tuning.retryInitialDelayMs;
    let recorded = this.settings.recordPark === undefined;
    for (;;) {
      try {
        if (!recorded) {
          await this.settings.recordPark?.(parkRecordOf(location, message, failure));
          recorded = true;
        }
        if (!this.producer) throw new Error('dead-letter producer is not connected');
        await this.producer.send({ topic: this.settings.topics.webhookEventsDeadLetter, acks: -1, messages: [{ key: message.key, value: message.value, headers }] });
        this.settings.onDeadLetter?.();
        this.settings.logger.error({ ...location, offset: message.offset, code: failure.code, err: failure.message }, 'message parked on the dead-letter topic');
        return true;
      } catch (error) {
        this.settings.logger.warn({ ...location, offset: message.offset, err: describeError(error) }, 'recording the park or producing the dead letter failed; retrying');
        if (!(await this.waitHeartbeating(payload, delay))) return false;
        delay = nextDelay(delay, this.settings.tuning.retryMaxDelayMs);
      }
    }
  }

  /**
   * Awaits `work` (a handler) while heartbeating on a timer, so a handler slower than the session
   * does not get the member evicted (and the message handled again by the next owner, forever).
   * The timer stops when the work settles, the batch goes stale or the consumer stops. kafkajs sends
   * at most one heartbeat per interval, shared with its own.
   */
  private async heartbeatingWhile<T>(payload: EachBatchPayload, work: Promise<T>): Promise<T> {
    let beating = false;
    const timer = setInterval(() => {
      if (this.stopped || !payload.isRunning() || payload.isStale()) {
        clearInterval(timer);
        return;
      }
      if (beating) return;
      beating = true;
      payload
        .heartbeat()
        .catch((error: unknown) => {
          // A rebalance under way: the commit after the work tells; kafkajs rejoins.
          this.settings.logger.warn({ err: describeError(error) }, 'heartbeat during a handler failed');
        })
        .finally(() => {
          beating = false;
        });
    }, Math.max(50, Math.floor(this.settings.tuning.heartbeatIntervalMs / 2)));
    try {
      return await work;
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * Waits `ms` while heartbeating, so a long retry does not get the member kicked out. False when
   * the batch went stale or the consumer is stopping: the offset stays uncommitted. A heartbeat
   * that reports a rebalance throws, and kafkajs rejoins the group.
   */
  private async waitHeartbeating(payload: EachBatchPayload, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (this.stopped || !payload.isRunning() || payload.isStale()) return false;
      const left = deadline - Date.now();
      if (left <= 0) return true;
      await sleep(Math.min(left, this.settings.tuning.heartbeatIntervalMs), this.stopRequested);
      await payload.heartbeat();
    }
  }
}

/** What a park record says about a message: its ids from the headers, and what the value tells (when it is JSON). */
function parkRecordOf(location: { topic: string; partition: number }, message: KafkaMessage, failure: ConsumerFailure): ParkRecord {
  const where = `kafka:${location.topic}/${location.partition}/${message.offset}`;
  const value = jsonObject(message.value);
  const text = (field: string): string | undefined => (typeof value?.[field] === 'string' ? (value[field] as string) : undefined);
  const deliveryId = text('deliveryId');
  const routineId = text('routineId');
  return {
    sourceEventId: headerText(message.headers, KafkaHeaders.eventId) ?? where,
    sourceStream: headerText(message.headers, KafkaHeaders.streamId) ?? where,
    sourceType: headerText(message.headers, KafkaHeaders.eventType) ?? 'unknown',
    ...(deliveryId === undefined ? {} : { deliveryId }),
    ...(routineId === undefined ? {} : { routineId }),
    error: `${failure.code}: ${failure.message}`,
  };
}

function jsonObject(value: Buffer | null): Record<string, unknown> | undefined {
  if (value === null) return undefined;
  try {
    const parsed = JSON.parse(value.toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
