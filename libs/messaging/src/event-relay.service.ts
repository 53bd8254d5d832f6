import type { CheckpointStore, EventStore, GlobalPosition, RecordedEvent, Subscription } from '@wts/event-store';
import { formatPosition } from '@wts/event-store';
import { Partitioners, type Kafka, type Message, type Producer, type TopicMessages } from 'kafkajs';
import { Signal, describeError, nextDelay, sleep } from './async.util';
import type { MessagingLogger } from './kafka-client.factory';
import { encodeEvent } from './kafka-message.codec';
import { routeEvent, type KafkaTopicNames, type RelayDefinition } from './kafka-topics.contract';

export interface RelayTuning {
  /** At most this many events per produce request. */
  readonly maxBatchSize: number;
  /** How long the first event of a batch waits for company before the batch is sent. */
  readonly lingerMs: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
}

const SUSPENDED_POLL_MS = 25;

export const DEFAULT_RELAY_TUNING: RelayTuning = { maxBatchSize: 500, lingerMs: 10, retryInitialDelayMs: 100, retryMaxDelayMs: 5000 };

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
}

class RelayStoppedError extends Error {
  constructor() {
    super('relay stopped');
    this.name = 'RelayStoppedError';
  }
}

/**
 * One leadership term of a relay, the only path from the event store to Kafka: a catch-up
 * subscription from the durable checkpoint feeds a bounded buffer; one pump sends it in order
 * (batches of up to `maxBatchSize`, after `lingerMs`) through an idempotent producer with
 * acks=all, and saves the checkpoint only after the broker acknowledged. A failed send is retried
 * with backoff (on a fresh producer) without moving the checkpoint. At-least-once: a crash between
 * the acknowledgement and the checkpoint re-sends those events; consumers dedupe on `event-id`.
 */
export class EventRelay {
  private readonly buffer: Entry[] = [];
  private readonly entriesAdded = new Signal();
  private readonly spaceFreed = new Signal();
  private readonly stopRequested = new Signal();
  private stopping = false;
  private subscription: Subscription | undefined;
  private pumping: Promise<void> | undefined;
  private lastQueued: GlobalPosition | undefined;
  private producer: Producer | undefined;
  private forwarded = 0;

  constructor(private readonly deps: EventRelayDependencies) {}

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
    this.deps.logger.info({ relay: this.deps.definition.name, forwarded: this.forwarded }, 'relay stopped');
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
    while (!this.stopping && this.buffer.length >= this.deps.tuning.maxBatchSize * 2) await this.spaceFreed.wait();
    if (this.stopping) throw new RelayStoppedError();
    const route = routeEvent(event);
    if (route) {
      const encoded = encodeEvent(event, route);
      this.buffer.push({
        position: event.position,
        topic: this.deps.topics[route.topic],
        message: { key: encoded.key, value: encoded.value, headers: { ...encoded.headers } },
      });
    } else {
      this.buffer.push({ position: event.position });
    }
    this.lastQueued = event.position;
    this.entriesAdded.notify();
  }

  private async pump(): Promise<void> {
    const { maxBatchSize, lingerMs } = this.deps.tuning;
    while (!this.stopping) {
      if (this.buffer.length === 0) {
        await this.entriesAdded.wait();
        continue;
      }
      if (this.buffer.length < maxBatchSize) await sleep(lingerMs, this.stopRequested);
      if (this.stopping) return;
      const batch = this.buffer.slice(0, maxBatchSize);
      if (!(await this.send(batch))) return;
      this.buffer.splice(0, batch.length);
      this.spaceFreed.notify();
      if (!(await this.saveCheckpoint(batch[batch.length - 1].position))) return;
    }
  }

  /** True once the broker acknowledged every message of the batch; false when told to stop first. */
  private async send(batch: readonly Entry[]): Promise<boolean> {
    const topicMessages = groupByTopic(batch);
    if (topicMessages.length === 0) return true;
    let delay = this.deps.tuning.retryInitialDelayMs;
    for (let attempt = 1; ; attempt++) {
      if (this.stopping) return false;
      if (!(await this.whileSuspended())) return false;
      try {
        const producer = await this.connectedProducer();
        await producer.sendBatch({ topicMessages, acks: -1 });
        this.forwarded += topicMessages.reduce((sum, topic) => sum + topic.messages.length, 0);
        return true;
      } catch (error) {
        this.deps.logger.warn({ relay: this.deps.definition.name, attempt, err: describeError(error) }, 'relay produce failed; retrying without moving the checkpoint');
        await this.dropProducer();
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

/** Messages per topic, each list in the order of the store (kafkajs keeps it per partition). */
function groupByTopic(batch: readonly Entry[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const entry of batch) {
    if (!entry.topic || !entry.message) continue;
    const list = byTopic.get(entry.topic) ?? [];
    list.push(entry.message);
    byTopic.set(entry.topic, list);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
