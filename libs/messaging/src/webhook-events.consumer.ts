import { Partitioners, type Consumer, type EachBatchPayload, type Kafka, type KafkaMessage, type Producer } from 'kafkajs';
import { Signal, describeError, retryAfterFailure, retryWithBackoff, type RetryOptions, type RetryResult } from '@wts/runtime';
import { BatchHeartbeat } from './consumer-batch.heartbeat';
import { toConsumerFailure, type ConsumerFailure } from './consumer-failure.errors';
import { startGroupMember, type MessagingLogger } from './kafka-client.factory';
import {
  MESSAGE_SCHEMAS,
  MessageDecodeError,
  UnsupportedSchemaVersionError,
  decodeMessage,
  headerText,
  type InboundEvent,
} from './kafka-message.codec';
import { KafkaHeaders, SUPPORTED_SCHEMA_VERSIONS, type KafkaTopicNames } from './kafka-topics.contract';
import type { ParkRecorder } from './park-record';
import { DeadLetterParking, type MessageLocation } from './dead-letter.parking';
import { ConsumerOffsetWriter } from './consumer-offset.writer';
import { CONSUMER_RESTART_BACKOFF, DEFAULT_CONSUMER_TUNING, type ConsumerTuning } from './webhook-events.tuning';
export { DEFAULT_CONSUMER_TUNING, type ConsumerTuning };

/** Handles one decoded event; throws (a ConsumerFailure, ideally) when it could not. */
export type InboundHandler = (event: InboundEvent) => Promise<void>;

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
 *   that is not a positive integer) or keeps failing with a permanent error → a reference to it
 *   (never its value) produced to the dead-letter topic with its error, then resolved: never
 *   silently dropped, never blocking the partition. Redelivery (a rebalance, a crash) is harmless.
 */
export class WebhookEventsConsumer {
  private consumer: Consumer | undefined;
  private producer: Producer | undefined;
  private readonly deadLetters: DeadLetterParking;
  private readonly offsets: ConsumerOffsetWriter;
  private readonly stopRequested = new Signal();
  private stopped = false;

  constructor(private readonly settings: WebhookEventsConsumerSettings) {
    this.deadLetters = new DeadLetterParking(settings, () => this.producer);
    this.offsets = new ConsumerOffsetWriter(settings.tuning.commitDelayMs, settings.logger);
    const { sessionTimeoutMs, heartbeatIntervalMs } = settings.tuning;
    if (heartbeatIntervalMs * 3 > sessionTimeoutMs)
      throw new Error(`heartbeatIntervalMs (${heartbeatIntervalMs}) must be at most a third of sessionTimeoutMs (${sessionTimeoutMs})`);
    for (const eventType of settings.handlers.keys()) {
      if (!MESSAGE_SCHEMAS[eventType]) throw new Error(`no message schema for handled event type ${eventType}`);
    }
  }

  /** Connects the dead-letter producer, joins the group and starts consuming. Throws if Kafka is unreachable. */
  async start(): Promise<void> {
    const producer = this.settings.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.producer = producer;
    await producer.connect();
    await this.join();
  }

  /** Commits what finished, then leaves the group after the message in flight (its offset committed only if it completed). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRequested.notify();
    await this.offsets.flush();
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
      this.settings.logger.warn(
        { groupId, restart: payload.restart, err: describeError(payload.error) },
        'webhook events consumer crashed',
      );
      if (!payload.restart && consumer === this.consumer) this.restartLater();
    });
    await startGroupMember(
      consumer,
      async () => {
        // A new group starts at the beginning: deliveries relayed before it existed are not skipped.
        await consumer.subscribe({ topics: [topics.webhookEvents], fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: tuning.partitionsConsumedConcurrently,
          eachBatch: (payload) => this.eachBatch(payload),
        });
      },
      () => {
        if (this.consumer === consumer) this.consumer = undefined;
      },
    );
  }

  /** kafkajs gives up on non-retriable errors: start over with a new member (CONSUMER_RESTART_BACKOFF). */
  private restartLater(): void {
    if (this.stopped) return;
    void retryWithBackoff(
      async () => {
        const crashed = this.consumer;
        this.consumer = undefined;
        this.offsets.cancel();
        await crashed?.disconnect().catch(() => undefined);
        if (this.stopped) return;
        await this.join();
      },
      {
        ...CONSUMER_RESTART_BACKOFF,
        waitFirst: true,
        proceed: () => !this.stopped,
        interrupt: this.stopRequested,
        onFailure: (error) => this.settings.logger.warn({ err: describeError(error) }, 'webhook events consumer restart failed; retrying'),
      },
    );
  }

  /**
   * A fetched batch, a slice of `messagesInFlight` messages at a time, handled concurrently.
   * Offsets are resolved strictly in order, as the leading messages are done with, and committed
   * off the batch's path within `commitDelayMs` of the slice's end (every `commitEveryMs` while one
   * is retried). A message abandoned (a rebalance or a stop during its retries) stops the batch:
   * what precedes it is committed at once (so is all that is done when stopping), nothing after it.
   */
  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const heartbeat = new BatchHeartbeat(payload, {
      heartbeatIntervalMs: this.settings.tuning.heartbeatIntervalMs,
      stopped: () => this.stopped,
      interrupt: this.stopRequested,
      logger: this.settings.logger,
    });
    const size = this.settings.tuning.messagesInFlight;
    // With autoCommit off, commitOffsetsIfNecessary() alone never commits: pass the offsets.
    const commit = (): Promise<void> => payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
    for (let start = 0; start < batch.messages.length; start += size) {
      if (!payload.isRunning() || payload.isStale()) return;
      const slice = batch.messages.slice(start, start + size);
      const finished = slice.map(() => false);
      let resolved = 0;
      const committer = setInterval(() => void this.offsets.flush(commit), this.settings.tuning.commitEveryMs);
      try {
        await Promise.all(
          slice.map(async (message, index) => {
            if (!(await this.process({ topic: batch.topic, partition: batch.partition }, message, heartbeat))) return;
            finished[index] = true;
            while (resolved < slice.length && finished[resolved]) payload.resolveOffset(slice[resolved++].offset);
          }),
        );
      } finally {
        clearInterval(committer);
      }
      if (resolved > 0) this.offsets.later(commit);
      if (resolved < slice.length || this.stopped) return this.offsets.flush();
      await payload.heartbeat();
    }
  }

  /** True when the message is done with (handled, skipped or parked); false when abandoned. */
  private async process(location: MessageLocation, message: KafkaMessage, heartbeat: BatchHeartbeat): Promise<boolean> {
    const eventType = headerText(message.headers, KafkaHeaders.eventType);
    if (eventType === undefined)
      return this.park(
        location,
        message,
        { disposition: 'park', code: 'undecodable', message: `header "${KafkaHeaders.eventType}" is missing` },
        heartbeat,
      );
    const handler = this.settings.handlers.get(eventType);
    if (!handler) return true;
    const decode = (): InboundEvent =>
      decodeMessage(location, message, MESSAGE_SCHEMAS[eventType], {
        supportedSchemaVersions: this.settings.supportedSchemaVersions ?? SUPPORTED_SCHEMA_VERSIONS,
      });
    // Every message's path is one decode and one handling; a retry is built only on a failure.
    let event: InboundEvent;
    try {
      try {
        event = decode();
      } catch (error) {
        const decoded = await this.decodeOnceSupported(error, decode, location, message, heartbeat);
        if (decoded.kind === 'stopped') return false;
        event = decoded.value;
      }
    } catch (error) {
      if (error instanceof MessageDecodeError)
        return this.park(location, message, { disposition: 'park', code: 'undecodable', message: error.message }, heartbeat);
      throw error;
    }
    const handleOnce = async (attempt: number): Promise<ConsumerFailure | undefined> => {
      try {
        await heartbeat.during(handler(event));
        return undefined;
      } catch (error) {
        const failure = toConsumerFailure(error);
        if (failure.disposition === 'park' && attempt >= this.settings.tuning.attemptsBeforeParking) return failure;
        this.settings.logger.warn(
          { ...location, offset: message.offset, eventId: event.eventId, attempt, code: failure.code, err: failure.message },
          'handling failed; retrying in place',
        );
        throw error;
      }
    };
    let failure: ConsumerFailure | undefined;
    try {
      failure = await handleOnce(1);
    } catch (error) {
      const handled = await retryAfterFailure(error, handleOnce, this.inPlace(heartbeat));
      if (handled.kind === 'stopped') return false;
      failure = handled.value;
    }
    return failure === undefined ? true : this.park(location, message, failure, heartbeat);
  }

  /**
   * A message of a schema version newer than this build reads is not poison: a newer build reads
   * it. The partition waits here, retrying in place, until an upgraded member takes it over (or
   * the batch goes stale). Any other decoding error is thrown at once.
   */
  private decodeOnceSupported(
    firstError: unknown,
    decode: () => InboundEvent,
    location: MessageLocation,
    message: KafkaMessage,
    heartbeat: BatchHeartbeat,
  ): Promise<RetryResult<InboundEvent>> {
    return retryAfterFailure(firstError, async () => decode(), {
      ...this.inPlace(heartbeat),
      retryIf: (error) => error instanceof UnsupportedSchemaVersionError,
      onFailure: (error, attempt) => {
        if (!(error instanceof UnsupportedSchemaVersionError)) return;
        this.settings.logger.warn(
          {
            ...location,
            offset: message.offset,
            eventId: headerText(message.headers, KafkaHeaders.eventId),
            schemaVersion: error.schemaVersion,
            supported: error.supported,
            attempt,
          },
          `message of schema version ${error.schemaVersion} is newer than this build reads (${error.supported.join(', ')}): its partition waits, retrying in place, until an upgraded member takes it over`,
        );
      },
    });
  }

  /** Records the park (recordPark), then produces a reference to the message, with its error, to the dead-letter topic and waits for the ack. */
  private park(location: MessageLocation, message: KafkaMessage, failure: ConsumerFailure, heartbeat: BatchHeartbeat): Promise<boolean> {
    return this.deadLetters.park(location, message, failure, this.inPlace(heartbeat));
  }

  /**
   * Retried in place with backoff, heartbeating through the waits: the first attempt always runs;
   * a retry only while the batch is current — when it went stale or the consumer is stopping, the
   * message is abandoned (its offset stays uncommitted, it comes again).
   */
  private inPlace(heartbeat: BatchHeartbeat): RetryOptions {
    return {
      initialDelayMs: this.settings.tuning.retryInitialDelayMs,
      maxDelayMs: this.settings.tuning.retryMaxDelayMs,
      proceed: (attempt) => attempt === 1 || heartbeat.current(),
      wait: (ms) => heartbeat.wait(ms),
    };
  }
}
