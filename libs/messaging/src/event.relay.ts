import type { GlobalPosition, RecordedEvent, Subscription } from '@wts/event-store';
import { formatPosition } from '@wts/event-store';
import { metrics } from '@wts/observability';
import { Signal, describeError, retryWithBackoff, sleep, type RetryOptions } from '@wts/runtime';
import type { BatchedLookup, PayloadLookup } from '@wts/application';
import type { EventRelayDependencies } from './event-relay.dependencies';
import { groupByTopic, isMessageTooLarge } from './produce-batching';
import { batchBytes, relayEntryOf, runPayloadLookup, type RelayEntry } from './relay.entry';
import { RelayBuffer, completeRunMessages } from './relay.buffer';
import { RelayProducer } from './relay.producer';

const SUSPENDED_POLL_MS = 25;

/** The durable checkpoint of a relay, in the event store's CheckpointStore. */
export function relayCheckpointName(relayName: string): string {
  return `kafka-relay/${relayName}`;
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
 * (`tooLargeAttemptsBeforeParking`), then parked (recordPark: `parked-<event id>` in the store, listed
 * and replayable) and passed — never silently skipped, and never holding back the events after it.
 * At-least-once: a crash between the acknowledgement and the checkpoint re-sends those events;
 * consumers dedupe on `event-id`.
 */
export class EventRelay {
  private readonly buffer: RelayBuffer;
  private readonly stopRequested = new Signal();
  private stopping = false;
  private subscription: Subscription | undefined;
  private pumping: Promise<void> | undefined;
  private lastQueued: GlobalPosition | undefined;
  private readonly producer: RelayProducer;
  private forwarded = 0;
  private parked = 0;
  private checkpointSaved: number | undefined;
  private readonly payloads: BatchedLookup<PayloadLookup>;

  constructor(private readonly deps: EventRelayDependencies) {
    this.producer = new RelayProducer(deps.kafka);
    this.buffer = new RelayBuffer(deps.tuning);
    this.payloads = runPayloadLookup(deps.store);
  }

  /** Metrics: events read from the store and not yet acknowledged by Kafka. */
  pendingEvents(): number {
    return this.buffer.length;
  }

  /** Metrics: when the oldest unacknowledged event was recorded (epoch ms); undefined when caught up. */
  oldestPendingAt(): number | undefined {
    return this.buffer.oldestAt();
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
    this.buffer.close();
    await this.subscription?.stop();
    await this.pumping;
    await this.producer.drop();
    this.deps.logger.info({ relay: this.deps.definition.name, forwarded: this.forwarded, parked: this.parked }, 'relay stopped');
  }

  /** Reads from the store into the buffer; a failed subscription is resubscribed (from what was queued) after a fixed pause. */
  private follow(): void {
    const pause = this.deps.tuning.retryInitialDelayMs;
    void retryWithBackoff(
      async () => {
        if (this.stopping) return;
        const subscription = this.deps.store.subscribeToAll(
          { after: this.lastQueued, filter: { streamPrefixes: this.deps.definition.streamPrefixes } },
          (event) => this.enqueue(event),
        );
        this.subscription = subscription;
        await subscription.done;
      },
      {
        initialDelayMs: pause,
        maxDelayMs: pause,
        proceed: () => !this.stopping,
        interrupt: this.stopRequested,
        onFailure: (error) => {
          if (!this.stopping)
            this.deps.logger.error(
              { relay: this.deps.definition.name, err: describeError(error) },
              'relay subscription failed; resubscribing',
            );
        },
      },
    );
  }

  private async enqueue(event: RecordedEvent): Promise<void> {
    if (!(await this.buffer.add(relayEntryOf(event, this.deps.topics, this.payloads)))) throw new RelayStoppedError();
    this.lastQueued = event.position;
  }

  private async pump(): Promise<void> {
    const { lingerMs } = this.deps.tuning;
    while (!this.stopping) {
      if (this.buffer.length === 0) {
        await this.buffer.whenAdded();
        continue;
      }
      if (!this.buffer.fullBatchBuffered()) await sleep(lingerMs, this.stopRequested);
      if (this.stopping) return;
      const onFailure = (err: unknown): void =>
        this.deps.logger.warn({ err: describeError(err) }, "a run's payload is unreadable; retrying");
      if (!(await completeRunMessages(this.buffer, this.buffer.nextBatch(), { ...this.backoff(), onFailure }))) return;
      // Completed messages are larger: the batch is taken again by size (never longer than before).
      if (!(await this.forward(this.buffer.nextBatch()))) return;
    }
  }

  /**
   * Sends `batch` (the head of the buffer), then drops it from the buffer and checkpoints it. A
   * batch the broker refuses as too large is forwarded as two halves, each checkpointed once
   * acknowledged. False when the term ended first.
   */
  private async forward(batch: readonly RelayEntry[]): Promise<boolean> {
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
    this.buffer.remove(batch);
    for (const entry of batch) entry.span?.end();
    return this.saveCheckpoint(batch[batch.length - 1].position);
  }

  /**
   * Acknowledged once the broker acknowledged every message of the batch; too_large when the broker
   * refused a batch of several messages as too large (the caller splits it); stopped when the term
   * ended first; park when a single message stayed above the topic's limit for
   * `tooLargeAttemptsBeforeParking` attempts. Anything else is retried with backoff on a fresh producer.
   */
  private async send(batch: readonly RelayEntry[]): Promise<SendOutcome> {
    const topicMessages = groupByTopic(batch);
    if (topicMessages.length === 0) return 'acknowledged';
    const published = batch.filter((entry) => entry.message !== undefined);
    const sent = await retryWithBackoff(async (attempt): Promise<SendOutcome> => {
      if (!(await this.whileSuspended())) return 'stopped';
      try {
        await this.producer.sendBatch(topicMessages);
        this.forwarded += published.length;
        return 'acknowledged';
      } catch (error) {
        await this.producer.drop();
        if (isMessageTooLarge(error)) {
          if (published.length > 1) return 'too_large';
          const [single] = published;
          const parking = attempt >= this.deps.tuning.tooLargeAttemptsBeforeParking;
          this.deps.logger.error(
            {
              relay: this.deps.definition.name,
              attempt,
              eventId: single.eventId,
              topic: single.topic,
              position: formatPosition(single.position),
              bytes: single.bytes,
              err: describeError(error),
            },
            parking
              ? "an event is larger than the topic's max.message.bytes: parked in the store (parked-<event id>) and passed; replay it once the topic's limit is raised"
              : "an event is larger than the topic's max.message.bytes: retried a few times, then parked",
          );
          if (parking) return 'park';
        } else {
          this.deps.logger.warn(
            { relay: this.deps.definition.name, attempt, err: describeError(error) },
            'relay produce failed; retrying without moving the checkpoint',
          );
        }
        throw error;
      }
    }, this.backoff());
    return sent.kind === 'done' ? sent.value : 'stopped';
  }

  /**
   * Records (recordPark) an event the topic will not take: `DispatchParked` on `parked-<event id>`
   * with the reason (listed with the parked deliveries, replayable with the CLI). Parking twice is
   * a no-op. Failures are retried: the event is passed only once its park is durable. False when
   * the term ended first.
   */
  private async park(entry: RelayEntry): Promise<boolean> {
    const error = `relay ${this.deps.definition.name}: the event (${entry.bytes} bytes) is larger than topic ${entry.topic ?? '?'} accepts (max.message.bytes); not forwarded`;
    return this.durably(
      async () => {
        await this.deps.recordPark({ ...entry.source, error });
        this.parked += 1;
      },
      (failure) =>
        this.deps.logger.error(
          { relay: this.deps.definition.name, eventId: entry.eventId, err: describeError(failure) },
          'relay could not park an event in the store; retrying',
        ),
    );
  }

  /** After the acknowledgement. A deposed leader does not save: its successor owns the checkpoint. */
  private async saveCheckpoint(position: GlobalPosition): Promise<boolean> {
    return this.durably(
      async () => {
        await this.deps.checkpoints.save(this.checkpointName, position);
        this.checkpointSaved = Date.now();
      },
      (error) =>
        this.deps.logger.error({ relay: this.deps.definition.name, err: describeError(error) }, 'relay checkpoint save failed; retrying'),
    );
  }

  /**
   * Store work the relay cannot move past (a park, a checkpoint save): done while leading (waiting
   * out a suspension), even once a stop was requested — the batch in flight finishes — but a
   * failure is retried only while the relay is not stopping. False when it was not done.
   */
  private async durably(work: () => Promise<void>, onFailure: (error: unknown) => void): Promise<boolean> {
    const done = await retryWithBackoff(
      async () => {
        if (!(await this.whileSuspended())) return false;
        await work();
        return true;
      },
      { ...this.backoff(), proceed: (attempt) => attempt === 1 || !this.stopping, onFailure },
    );
    return done.kind === 'done' && done.value;
  }

  private backoff(): RetryOptions {
    return {
      initialDelayMs: this.deps.tuning.retryInitialDelayMs,
      maxDelayMs: this.deps.tuning.retryMaxDelayMs,
      interrupt: this.stopRequested,
      proceed: () => !this.stopping,
    };
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
}
