import { Streams } from '@wts/contracts';
import type { CheckpointStore, EventStore, EventToAppend, GlobalPosition, RecordedEvent, Subscription } from '@wts/event-store';
import { randomUUID } from 'node:crypto';
import { formatPosition } from '@wts/event-store';
import type { Span } from '@opentelemetry/api';
import { SpanKind, contextOf, metrics, traceparentOf, tracer, tracingEnabled } from '@wts/observability';
import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import { Signal, describeError, nextDelay, sleep } from '@wts/application';
import type { MessagingLogger } from './kafka-client.factory';
import { encodeEvent } from './kafka-message.codec';
import { KafkaHeaders, routeEvent, type KafkaTopicNames, type RelayDefinition } from './kafka-topics.contract';
import { DEFAULT_RELAY_TUNING, RELAY_PRODUCER_TIMING, RELAY_SEND_BUDGET_MS, type RelayTuning } from './event-relay.tuning';
export { DEFAULT_RELAY_TUNING, RELAY_PRODUCER_TIMING, RELAY_SEND_BUDGET_MS, type RelayTuning };
import { groupByTopic, isMessageTooLarge, messageBytes } from './produce-batching';

const SUSPENDED_POLL_MS = 25;

/** The durable checkpoint of a relay, in the event store's CheckpointStore. */
export function relayCheckpointName(relayName: string): string {
  return `kafka-relay/${relayName}`;
}

export interface EventRelayDependencies {
  readonly kafka: Kafka;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  readonly definition: RelayDefinition;
  readonly topics: KafkaTopicNames;
  readonly logger: MessagingLogger;
  readonly tuning: RelayTuning;
  /** Checked before every produce and every checkpoint save: a suspended leader waits, a deposed one stops. */
  readonly stillLeading: () => boolean;
}

interface Entry {
  readonly position: GlobalPosition;
  /** Absent for events of the relay's streams that are not published: they only move the checkpoint. */
  readonly topic?: string;
  readonly message?: Message;
  readonly eventId: string;
  /** With tracing on: the publish span, ended once the broker acknowledged. */
  readonly span?: Span;
  /** When the event was recorded (epoch ms): the relay's lag in seconds. */
  readonly at: number;
  /** What the message adds to a produce request (0 when unpublished). */
  readonly bytes: number;
  /** Published events: where they came from, for a park record. */
  readonly source?: ParkSource;
}

interface ParkSource {
  readonly streamId: string;
  readonly type: string;
  readonly deliveryId?: string;
  readonly routineId?: string;
}

type SendOutcome = 'acknowledged' | 'too_large' | 'park' | 'stopped';

class RelayStoppedError extends Error {
  constructor() {
    super('relay stopped');
    this.name = 'RelayStoppedError';
  }
}

/**
 * One leadership term of a relay, the only path from the event store to Kafka: a catch-up
 * subscription from the durable checkpoint feeds a buffer bounded by count and bytes; one pump
 * sends it in order (batches of up to `maxBatchSize` events and `maxBatchBytes`, after `lingerMs`)
 * through an idempotent producer with acks=all, and saves the checkpoint only after the broker
 * acknowledged. A failed send is retried with backoff (on a fresh producer) without moving the
 * checkpoint. A batch the broker refuses as too large is split in halves, down to single events;
 * a single event the topic refuses is reported (with its event id), retried a few times
 * (`tooLargeAttemptsBeforeParking`), then parked in the store (`parked-<event id>`, listed and
 * replayable) and passed — never silently skipped, and never holding back the events after it.
 * At-least-once: a crash between the acknowledgement and the checkpoint re-sends those events;
 * consumers dedupe on `event-id`.
 */
export class EventRelay {
  private readonly buffer: Entry[] = [];
  private bufferedBytes = 0;
  private readonly entriesAdded = new Signal();
  private readonly spaceFreed = new Signal();
  private readonly stopRequested = new Signal();
  private stopping = false;
  private subscription: Subscription | undefined;
  private pumping: Promise<void> | undefined;
  private lastQueued: GlobalPosition | undefined;
  private producer: Producer | undefined;
  private forwarded = 0;
  private parked = 0;
  private checkpointSaved: number | undefined;

  constructor(private readonly deps: EventRelayDependencies) {}

  /** Metrics: events read from the store and not yet acknowledged by Kafka. */
  pendingEvents(): number {
    return this.buffer.length;
  }

  /** Metrics: when the oldest unacknowledged event was recorded (epoch ms); undefined when caught up. */
  oldestPendingAt(): number | undefined {
    return this.buffer[0]?.at;
  }

  /** Metrics: when the checkpoint last moved; undefined while there is nothing to forward (an idle relay is not late). */
  checkpointSavedAt(): number | undefined {
    return this.buffer.length === 0 ? undefined : this.checkpointSaved;
  }

  private get checkpointName(): string {
    return relayCheckpointName(this.deps.definition.name);
  }

  /** Loads the checkpoint (throws if the store is down) and starts forwarding. */
  async start(): Promise<void> {
    this.lastQueued = await this.deps.checkpoints.load(this.checkpointName);
    this.deps.logger.info(
      { relay: this.deps.definition.name, after: this.lastQueued ? formatPosition(this.lastQueued) : 'start' },
      'relay forwarding from its checkpoint',
    );
    this.checkpointSaved = Date.now();
    metrics.trackRelay(this.deps.definition.name, this);
    this.follow();
    this.pumping = this.pump();
  }

  /** Stops reading, lets the batch in flight finish (and checkpoint, if still leading), disconnects. */
  async stop(): Promise<void> {
    if (this.stopping) return this.pumping;
    this.stopping = true;
    this.stopRequested.notify();
    this.entriesAdded.notify();
    this.spaceFreed.notify();
    await this.subscription?.stop();
    await this.pumping;
    await this.dropProducer();
    this.deps.logger.info({ relay: this.deps.definition.name, forwarded: this.forwarded, parked: this.parked }, 'relay stopped');
  }

  private follow(): void {
    const subscription = this.deps.store.subscribeToAll(
      { after: this.lastQueued, filter: { streamPrefixes: this.deps.definition.streamPrefixes } },
      (event) => this.enqueue(event),
    );
    this.subscription = subscription;
    subscription.done.then(
      () => undefined,
      (error: unknown) => {
        if (this.stopping) return;
        this.deps.logger.error({ relay: this.deps.definition.name, err: describeError(error) }, 'relay subscription failed; resubscribing');
        void sleep(this.deps.tuning.retryInitialDelayMs, this.stopRequested).then(() => {
          if (!this.stopping) this.follow();
        });
      },
    );
  }

  private async enqueue(event: RecordedEvent): Promise<void> {
    const entry = this.entryOf(event);
    // Bounded by count and by bytes; an empty buffer takes any one event, however large.
    const { maxBatchSize, maxBufferBytes } = this.deps.tuning;
    while (!this.stopping && this.buffer.length > 0 && (this.buffer.length >= maxBatchSize * 2 || this.bufferedBytes + entry.bytes > maxBufferBytes)) {
      await this.spaceFreed.wait();
    }
    if (this.stopping) throw new RelayStoppedError();
    this.buffer.push(entry);
    this.bufferedBytes += entry.bytes;
    this.lastQueued = event.position;
    this.entriesAdded.notify();
  }

  private entryOf(event: RecordedEvent): Entry {
    const route = routeEvent(event);
    const at = event.createdAt.getTime();
    if (!route) return { position: event.position, eventId: event.id, at, bytes: 0 };
    const encoded = encodeEvent(event, route);
    const message: Message = { key: encoded.key, value: encoded.value, headers: { ...encoded.headers } };
    const topic = this.deps.topics[route.topic];
    const span = tracingEnabled() ? this.publishSpan(topic, message) : undefined;
    return { position: event.position, topic, message, eventId: event.id, at, span, bytes: messageBytes(message), source: parkSource(event) };
  }

  /** A producer span continuing the event's trace; the message carries it on in its traceparent header. */
  private publishSpan(topic: string, message: Message): Span {
    const headers = message.headers ?? {};
    const incoming = headers[KafkaHeaders.traceparent];
    const span = tracer().startSpan(`publish ${topic}`, { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic } }, contextOf(typeof incoming === 'string' ? incoming : undefined));
    headers[KafkaHeaders.traceparent] = traceparentOf(span);
    message.headers = headers;
    return span;
  }

  private async pump(): Promise<void> {
    const { lingerMs } = this.deps.tuning;
    while (!this.stopping) {
      if (this.buffer.length === 0) {
        await this.entriesAdded.wait();
        continue;
      }
      if (!this.fullBatchBuffered()) await sleep(lingerMs, this.stopRequested);
      if (this.stopping) return;
      if (!(await this.forward(this.nextBatch()))) return;
    }
  }

  /** A full batch is waiting: no need to linger. */
  private fullBatchBuffered(): boolean {
    return this.buffer.length >= this.deps.tuning.maxBatchSize || this.bufferedBytes >= this.deps.tuning.maxBatchBytes;
  }

  /** The head of the buffer: at most `maxBatchSize` events and `maxBatchBytes`, at least one event. */
  private nextBatch(): Entry[] {
    const { maxBatchSize, maxBatchBytes } = this.deps.tuning;
    let bytes = 0;
    let count = 0;
    for (const entry of this.buffer) {
      if (count > 0 && (count >= maxBatchSize || bytes + entry.bytes > maxBatchBytes)) break;
      bytes += entry.bytes;
      count++;
    }
    return this.buffer.slice(0, count);
  }

  /**
   * Sends `batch` (the head of the buffer), then drops it from the buffer and checkpoints it. A
   * batch the broker refuses as too large is forwarded as two halves, each checkpointed once
   * acknowledged. False when the term ended first.
   */
  private async forward(batch: readonly Entry[]): Promise<boolean> {
    const outcome = await this.send(batch);
    if (outcome === 'stopped') return false;
    if (outcome === 'park' && !(await this.park(batch.find((entry) => entry.message !== undefined) ?? batch[0]))) return false;
    if (outcome === 'too_large') {
      const half = Math.ceil(batch.length / 2);
      this.deps.logger.warn(
        { relay: this.deps.definition.name, events: batch.length, bytes: batchBytes(batch), split: [half, batch.length - half] },
        'the broker refused the produce request as too large; splitting it',
      );
      return (await this.forward(batch.slice(0, half))) && (await this.forward(batch.slice(half)));
    }
    this.buffer.splice(0, batch.length);
    for (const entry of batch) entry.span?.end();
    this.bufferedBytes -= batchBytes(batch);
    this.spaceFreed.notify();
    return this.saveCheckpoint(batch[batch.length - 1].position);
  }

  /**
   * Acknowledged once the broker acknowledged every message of the batch; too_large when the broker
   * refused a batch of several messages as too large (the caller splits it); stopped when the term
   * ended first; park when a single message stayed above the topic's limit for
   * `tooLargeAttemptsBeforeParking` attempts. Anything else is retried with backoff on a fresh producer.
   */
  private async send(batch: readonly Entry[]): Promise<SendOutcome> {
    const topicMessages = groupByTopic(batch);
    if (topicMessages.length === 0) return 'acknowledged';
    const published = batch.filter((entry) => entry.message !== undefined);
    let delay = this.deps.tuning.retryInitialDelayMs;
    for (let attempt = 1; ; attempt++) {
      if (this.stopping) return 'stopped';
      if (!(await this.whileSuspended())) return 'stopped';
      try {
        const producer = await this.connectedProducer();
        await producer.sendBatch({ topicMessages, acks: -1, timeout: RELAY_PRODUCER_TIMING.ackTimeoutMs });
        this.forwarded += published.length;
        return 'acknowledged';
      } catch (error) {
        await this.dropProducer();
        if (isMessageTooLarge(error)) {
          if (published.length > 1) return 'too_large';
          const [single] = published;
          const parking = attempt >= this.deps.tuning.tooLargeAttemptsBeforeParking;
          this.deps.logger.error(
            { relay: this.deps.definition.name, attempt, eventId: single.eventId, topic: single.topic, position: formatPosition(single.position), bytes: single.bytes, err: describeError(error) },
            parking
              ? "an event is larger than the topic's max.message.bytes: parked in the store (parked-<event id>) and passed; replay it once the topic's limit is raised"
              : "an event is larger than the topic's max.message.bytes: retried a few times, then parked",
          );
          if (parking) return 'park';
        } else {
          this.deps.logger.warn({ relay: this.deps.definition.name, attempt, err: describeError(error) }, 'relay produce failed; retrying without moving the checkpoint');
        }
        await sleep(delay, this.stopRequested);
        delay = nextDelay(delay, this.deps.tuning.retryMaxDelayMs);
      }
    }
  }

  /**
   * Records, in the store, an event the topic will not take: `DispatchParked` on
   * `parked-<event id>` with the reason (listed with the parked deliveries, replayable with the
   * CLI). Parking twice is a no-op ("stream must not exist"). Store failures are retried: the
   * event is passed only once its park is durable. False when the term ended first.
   */
  private async park(entry: Entry): Promise<boolean> {
    const source = entry.source;
    const parked: EventToAppend = {
      id: randomUUID(),
      type: 'DispatchParked',
      data: {
        sourceEventId: entry.eventId,
        sourceStream: source?.streamId ?? 'unknown',
        sourceType: source?.type ?? 'unknown',
        ...(source?.deliveryId === undefined ? {} : { deliveryId: source.deliveryId }),
        ...(source?.routineId === undefined ? {} : { routineId: source.routineId }),
        error: `relay ${this.deps.definition.name}: the event (${entry.bytes} bytes) is larger than topic ${entry.topic ?? '?'} accepts (max.message.bytes); not forwarded`,
        parkedAt: new Date().toISOString(),
      },
      metadata: { eventId: entry.eventId, correlationId: entry.eventId, causationId: entry.eventId, schemaVersion: 1 },
    };
    let delay = this.deps.tuning.retryInitialDelayMs;
    for (;;) {
      if (!(await this.whileSuspended())) return false;
      try {
        await this.deps.store.append(Streams.parked(entry.eventId), [parked], 'no_stream');
        this.parked += 1;
        return true;
      } catch (error) {
        this.deps.logger.error({ relay: this.deps.definition.name, eventId: entry.eventId, err: describeError(error) }, 'relay could not park an event in the store; retrying');
        if (this.stopping) return false;
        await sleep(delay, this.stopRequested);
        delay = nextDelay(delay, this.deps.tuning.retryMaxDelayMs);
      }
    }
  }

  /** After the acknowledgement. A deposed leader does not save: its successor owns the checkpoint. */
  private async saveCheckpoint(position: GlobalPosition): Promise<boolean> {
    let delay = this.deps.tuning.retryInitialDelayMs;
    for (;;) {
      if (!(await this.whileSuspended())) return false;
      try {
        await this.deps.checkpoints.save(this.checkpointName, position);
        this.checkpointSaved = Date.now();
        return true;
      } catch (error) {
        this.deps.logger.error({ relay: this.deps.definition.name, err: describeError(error) }, 'relay checkpoint save failed; retrying');
        if (this.stopping) return false;
        await sleep(delay, this.stopRequested);
        delay = nextDelay(delay, this.deps.tuning.retryMaxDelayMs);
      }
    }
  }

  /**
   * Waits while leadership is suspended (a rebalance under way, heartbeats overdue): nothing is
   * sent or checkpointed meanwhile. False when the term is over.
   */
  private async whileSuspended(): Promise<boolean> {
    while (!this.deps.stillLeading()) {
      if (this.stopping) return false;
      await sleep(SUSPENDED_POLL_MS, this.stopRequested);
    }
    return true;
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.deps.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: RELAY_PRODUCER_TIMING.retry,
    });
    try {
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    this.producer = producer;
    return producer;
  }

  /** A failed idempotent producer may be stuck on a sequence number: the next attempt uses a new one. */
  private async dropProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }
}

function batchBytes(batch: readonly Entry[]): number {
  return batch.reduce((sum, entry) => sum + entry.bytes, 0);
}


function parkSource(event: RecordedEvent): ParkSource {
  const data = event.data as { deliveryId?: unknown; routineId?: unknown } | null;
  const deliveryId = typeof data?.deliveryId === 'string' ? data.deliveryId : undefined;
  const routineId = typeof data?.routineId === 'string' ? data.routineId : undefined;
  return { streamId: event.streamId, type: event.type, ...(deliveryId === undefined ? {} : { deliveryId }), ...(routineId === undefined ? {} : { routineId }) };
}
