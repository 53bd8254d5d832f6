import type { DispatchDeliveryUseCase } from '@wts/application';
import { StreamCategories, type DeliveryAccepted } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import {
  createKafkaClient,
  encodeEvent,
  ensureTopics,
  routeEvent,
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
  /** Selected events the target does not take (other types, unpublished events). */
  skipped: number;
}

export function emptyCounts(): ReplayCounts {
  return { replayed: 0, created: 0, already_created: 0, parked: 0, skipped: 0 };
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
      });
      counts.replayed += 1;
      counts[outcome.kind] += 1;
    }
  }

  async close(): Promise<void> {
    // The store belongs to the caller.
  }
}

/**
 * `--to kafka`: re-publishes to the topic the relay would use, with the relay's own encoding
 * (encodeEvent: same key, value and headers, including `event-id`, so consumers dedupe), through
 * an idempotent producer with acks=all, one batch at a time, in store order.
 */
export class KafkaReplayTarget implements ReplayTarget {
  readonly name = kafkaClassifier.name;

  private constructor(
    private readonly producer: Producer,
    private readonly topics: KafkaTopicNames,
  ) {}

  static async connect(brokers: readonly string[], topics: KafkaTopicNames, logger: MessagingLogger): Promise<KafkaReplayTarget> {
    const kafka = createKafkaClient({ brokers, clientId: 'wts-cli-replay', logger });
    // Same as the relays: missing topics are created with the contract's partition counts.
    await ensureTopics(kafka, topics);
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    return new KafkaReplayTarget(producer, topics);
  }

  accepts(event: RecordedEvent): boolean {
    return kafkaClassifier.accepts(event);
  }

  async replay(events: readonly RecordedEvent[], counts: ReplayCounts): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    let skipped = 0;
    for (const event of events) {
      const route = routeEvent(event);
      if (!route) {
        skipped += 1;
        continue;
      }
      const encoded = encodeEvent(event, route);
      const topic = this.topics[route.topic];
      const messages = byTopic.get(topic) ?? [];
      messages.push({ key: encoded.key, value: encoded.value, headers: { ...encoded.headers } });
      byTopic.set(topic, messages);
    }
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    if (topicMessages.length > 0) await this.producer.sendBatch({ topicMessages, acks: -1 });
    counts.replayed += topicMessages.reduce((sum, topic) => sum + topic.messages.length, 0);
    counts.skipped += skipped;
  }

  async close(): Promise<void> {
    await this.producer.disconnect().catch(() => undefined);
  }
}
