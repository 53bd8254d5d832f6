import type { BatchedLookup, DispatchDeliveryUseCase, PayloadLookup } from '@wts/application';
import { StreamCategories, type DeliveryAccepted } from '@wts/contracts';
import { formatPosition, type EventStore, type RecordedEvent } from '@wts/event-store';
import {
  MAX_PRODUCE_REQUEST_BYTES,
  Relays,
  chunkBySize,
  createKafkaClient,
  ensureTopics,
  isMessageTooLarge,
  relayEntryOf,
  routeEvent,
  runPayloadLookup,
  type KafkaConnection,
  type KafkaTopicNames,
  type MessagingLogger,
} from '@wts/messaging';
import { Partitioners, type Message, type Producer, type TopicMessages } from 'kafkajs';
import type { ReplayTargetName } from './replay.options';

/** What a replay did, in the words of the summary. */
export interface ReplayCounts {
  /** Events handed to the target (sent to Kafka, or given to the dispatcher's use case). */
  replayed: number;
  /** Dispatcher only: runs that did not exist and were created now. */
  created: number;
  /** Dispatcher only: the run existed already (the normal case: replays are idempotent). */
  already_created: number;
  /** Dispatcher only: deliveries that can never become a run, parked with their error. */
  parked: number;
  /** Dispatcher only: accepted while their webhook was held: their runs wait for its release. */
  held: number;
  /** Selected events the target does not take (other types, unpublished events). */
  skipped: number;
}

export function emptyCounts(): ReplayCounts {
  return { replayed: 0, created: 0, already_created: 0, parked: 0, held: 0, skipped: 0 };
}

/** Decides which events a target takes: the dry run uses this alone, without connecting. */
export interface ReplayClassifier {
  readonly name: ReplayTargetName;
  accepts(event: RecordedEvent): boolean;
}

export interface ReplayTarget extends ReplayClassifier {
  /** Replays the batch in order and adds to `counts`; throws when the target failed (nothing is counted twice). */
  replay(events: readonly RecordedEvent[], counts: ReplayCounts): Promise<void>;
  close(): Promise<void>;
}

export const dispatcherClassifier: ReplayClassifier = {
  name: 'dispatcher',
  accepts: (event) => event.type === 'DeliveryAccepted' && event.streamId.startsWith(StreamCategories.delivery),
};

/** Kafka takes what the relays publish (routeEvent): the same topic and key for the same event. */
export const kafkaClassifier: ReplayClassifier = {
  name: 'kafka',
  accepts: (event) => routeEvent(event) !== undefined,
};

/**
 * `--to dispatcher`: each DeliveryAccepted goes straight to DispatchDeliveryUseCase, exactly as the
 * dispatcher's own worker hands it over. The use case is idempotent ("stream must not exist" on
 * `run-<run_id>`), so an existing run is reported as already created and nothing is duplicated.
 */
export class DispatcherReplayTarget implements ReplayTarget {
  readonly name = dispatcherClassifier.name;

  constructor(private readonly dispatch: DispatchDeliveryUseCase) {}

  accepts(event: RecordedEvent): boolean {
    return dispatcherClassifier.accepts(event);
  }

  async replay(events: readonly RecordedEvent[], counts: ReplayCounts): Promise<void> {
    for (const event of events) {
      if (!this.accepts(event)) {
        counts.skipped += 1;
        continue;
      }
      const traceparent = (event.metadata as { traceparent?: unknown } | null)?.traceparent;
      const outcome = await this.dispatch.execute({
        delivery: event.data as DeliveryAccepted['data'],
        position: event.position,
        eventId: event.id,
        traceparent: typeof traceparent === 'string' ? traceparent : '',
        request: { by: 'replay' },
      });
      counts.replayed += 1;
      counts[outcome.kind] += 1;
    }
  }

  async close(): Promise<void> {
    // The store belongs to the caller.
  }
}

/** A message to re-publish, with the event it comes from (named when the broker refuses it). */
interface Outbound {
  readonly topic: string;
  readonly message: Message;
  readonly bytes: number;
  readonly event: RecordedEvent;
}

/**
 * `--to kafka`: re-publishes to the topic the relay would use, with the relay's own encoding
 * (relayEntryOf: same key, value and headers, including `event-id`, so consumers dedupe; a run's
 * message framed from its payload as the relay frames it), through
 * an idempotent producer with acks=all, in store order, in produce requests capped like the
 * relay's (MAX_PRODUCE_REQUEST_BYTES, at least one message each). A request the broker refuses as
 * too large is split in halves; a single event the topic refuses fails the replay, naming it.
 */
export class KafkaReplayTarget implements ReplayTarget {
  readonly name = kafkaClassifier.name;

  private constructor(
    private readonly producer: Producer,
    private readonly topics: KafkaTopicNames,
    private readonly maxRequestBytes: number,
    private readonly payloads: BatchedLookup<PayloadLookup>,
  ) {}

  static async connect(
    store: EventStore,
    connection: KafkaConnection,
    topics: KafkaTopicNames,
    logger: MessagingLogger,
    maxRequestBytes = MAX_PRODUCE_REQUEST_BYTES,
    payloadRetentionSeconds?: number,
  ): Promise<KafkaReplayTarget> {
    const kafka = createKafkaClient({ connection, clientId: 'wts-cli-replay', logger });
    // Same as the relays: missing topics are created with the contract's partition counts and
    // max.message.bytes; an existing topic below that limit is raised. The same retention check as
    // the dispatcher's relay: a replay re-publishes runs with their payloads framed, and must not
    // put them on a routines.runs.v1 that keeps them longer than PAYLOAD_RETENTION_SECONDS.
    await ensureTopics(
      kafka,
      topics,
      {},
      {
        logger,
        roles: [Relays.ingressWebhooks.topic, Relays.dispatcherRuns.topic],
        payloadRetentionSeconds,
      },
    );
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    return new KafkaReplayTarget(producer, topics, maxRequestBytes, runPayloadLookup(store));
  }

  accepts(event: RecordedEvent): boolean {
    return kafkaClassifier.accepts(event);
  }

  async replay(events: readonly RecordedEvent[], counts: ReplayCounts): Promise<void> {
    const outbound: Outbound[] = [];
    let skipped = 0;
    // Every entry first (their payload reads go out in batches), then each awaited.
    for (const entry of events.map((event) => ({ event, entry: relayEntryOf(event, this.topics, this.payloads) }))) {
      const { topic, message, complete } = entry.entry;
      if (topic === undefined || message === undefined) {
        skipped += 1;
        continue;
      }
      const bytes = complete ? await complete() : entry.entry.bytes;
      entry.entry.span?.end();
      outbound.push({ topic, message, bytes, event: entry.event });
    }
    for (const request of chunkBySize(outbound, (item) => item.bytes, this.maxRequestBytes)) await this.send(request);
    counts.replayed += outbound.length;
    counts.skipped += skipped;
  }

  /** One produce request, in order; split in halves while the broker refuses it as too large. */
  private async send(request: readonly Outbound[]): Promise<void> {
    try {
      await this.producer.sendBatch({ topicMessages: byTopic(request), acks: -1 });
    } catch (error) {
      if (!isMessageTooLarge(error)) throw error;
      if (request.length === 1) {
        const [{ event, topic, bytes }] = request;
        throw new Error(
          `event ${event.id} (${formatPosition(event.position)}, about ${bytes} bytes) is larger than topic ${topic} accepts: raise the topic's max.message.bytes (e.g. to 16 MiB), then replay again`,
          { cause: error },
        );
      }
      const half = Math.ceil(request.length / 2);
      await this.send(request.slice(0, half));
      await this.send(request.slice(half));
    }
  }

  async close(): Promise<void> {
    await this.producer.disconnect().catch(() => undefined);
  }
}

/** Messages per topic, each list in store order (kafkajs keeps it per partition). */
function byTopic(request: readonly Outbound[]): TopicMessages[] {
  const grouped = new Map<string, Message[]>();
  for (const { topic, message } of request) {
    const messages = grouped.get(topic) ?? [];
    messages.push(message);
    grouped.set(topic, messages);
  }
  return [...grouped].map(([topic, messages]) => ({ topic, messages }));
}
