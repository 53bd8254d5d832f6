/* eslint-disable @typescript-eslint/no-namespace -- one namespace per message with its Key and Value (Amplication style) */
/**
 * The Kafka contract, in one place and free of any client library: topic names (versioned),
 * partition keys, header names, message key/value types and which stored event goes where.
 * `docs/kafka.md` explains the rules; the relay and the dispatcher's consumer implement them.
 */
import {
  SCHEMA_VERSION,
  StreamCategories,
  isWebhookEventType,
  schemaVersionOf,
  type DeliveryAccepted,
  type RunCreated,
  type WebhookEvent,
} from '@wts/contracts';

export const KafkaTopics = {
  /** Key: webhook id (per-webhook order). Lifecycle events of `webhook-*`, `DeliveryAccepted` of `delivery-*`. */
  webhookEvents: 'webhooks.events.v1',
  /** References to the messages of webhooks.events.v1 the dispatcher can never process (never their value), with the error. */
  webhookEventsDeadLetter: 'webhooks.events.v1.dlq',
  /** Key: routine id. `RunCreated` of `run-*`, for internal services. */
  routineRuns: 'routines.runs.v1',
  /** Single partition, never written: whoever the group assigns partition 0 runs the relay. */
  relayLeadership: 'relay.leadership.v1',
} as const;

export type TopicRole = keyof typeof KafkaTopics;
export type KafkaTopicNames = { readonly [R in TopicRole]: string };

/** The production names, or the same names behind a prefix (tests isolate themselves this way). */
export function kafkaTopicNames(prefix = ''): KafkaTopicNames {
  return {
    webhookEvents: `${prefix}${KafkaTopics.webhookEvents}`,
    webhookEventsDeadLetter: `${prefix}${KafkaTopics.webhookEventsDeadLetter}`,
    routineRuns: `${prefix}${KafkaTopics.routineRuns}`,
    relayLeadership: `${prefix}${KafkaTopics.relayLeadership}`,
  };
}

/** Partitions created at start when a topic is missing. Keys spread webhooks and routines over them. */
export const DEFAULT_PARTITIONS: { readonly [R in TopicRole]: number } = {
  webhookEvents: 4,
  webhookEventsDeadLetter: 1,
  routineRuns: 4,
  relayLeadership: 1,
};

/**
 * `max.message.bytes` of the topics that carry events (set when they are created, raised on an
 * existing topic below it). A RunCreated holds the framed, escaped payload: a 256 KiB body makes a
 * message of up to ~1.8 MB, above the broker's default limit (1 MiB). The broker-level
 * `message.max.bytes` can stay at its default.
 */
export const TOPIC_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The largest event a relay can forward: the topic's limit less room for key, headers and the record batch. */
export const KAFKA_MAX_EVENT_BYTES = TOPIC_MAX_MESSAGE_BYTES - 64 * 1024;

/**
 * `retention.ms` set on the topics that carry messages (DESIGN "Kafka": retention never loses an
 * accepted delivery). The dead-letter topic keeps its messages forever (-1). The event topics keep
 * 7 days: every accepted delivery and every park is in the event store anyway (the relay re-sends
 * from its checkpoint, the CLI replays), and the dispatcher's lag is measured against this
 * retention (consumer-lag.worker.ts), warning long before an unread message could expire.
 * An operator's own retention on a topic is kept, except on the dead-letter topic.
 */
export const TOPIC_RETENTION_MS: { readonly [R in TopicRole]?: number } = {
  webhookEvents: 7 * 24 * 3600 * 1000,
  routineRuns: 7 * 24 * 3600 * 1000,
  webhookEventsDeadLetter: -1,
};

/** The topics that carry messages (the leadership topic stays empty). */
export const DATA_TOPIC_ROLES: readonly TopicRole[] = ['webhookEvents', 'webhookEventsDeadLetter', 'routineRuns'];

/**
 * At most this many bytes (keys, values, headers and a per-record allowance) per produce request.
 * A single larger message is still sent alone: only the topic's `max.message.bytes` limits it.
 */
export const MAX_PRODUCE_REQUEST_BYTES = 1024 * 1024;

/** Consumer groups: the dispatcher's, and one per relay for its leadership. */
export const ConsumerGroups = {
  runDispatcher: 'run-dispatcher',
  relayLeadership: (relayName: string): string => `relay-${relayName}`,
} as const;

/** Header names. Every value is a UTF-8 string. */
export const KafkaHeaders = {
  eventType: 'event-type',
  /** The stored event's id (a UUID): consumers dedupe on it, forwarding is at-least-once. */
  eventId: 'event-id',
  schemaVersion: 'schema-version',
  /** W3C trace context of the event, when it has one. */
  traceparent: 'traceparent',
  streamId: 'stream-id',
  streamRevision: 'stream-revision',
  /** The event's place in $all, `commit/prepare`: the dispatcher reads the routine as it was there. */
  position: 'position',
  /** Dead letters only (with the original's identifying headers above, nothing else): why the message was parked, and where it was. */
  error: 'error',
  errorCode: 'error-code',
  originalTopic: 'original-topic',
  originalPartition: 'original-partition',
  originalOffset: 'original-offset',
} as const;

/** The headers of every relayed message: the service's own, and the CloudEvents binding's. */
export interface EventHeaders {
  readonly 'event-type': string;
  readonly 'event-id': string;
  readonly 'schema-version': string;
  readonly traceparent?: string;
  readonly 'stream-id': string;
  readonly 'stream-revision': string;
  readonly position: string;
  readonly ce_specversion: string;
  readonly ce_id: string;
  readonly ce_source: string;
  readonly ce_type: string;
  readonly ce_time: string;
  /** Absent only if the value has no such id (never for an event the service writes). */
  readonly ce_subject?: string;
  readonly 'content-type': string;
}

/**
 * Schema versions this build can decode; a message of another version is never guessed at. A newer
 * one waits in place (a rolling deploy: an upgraded member will read it); one that is not a
 * positive integer, or older than this build still reads, is parked. Version 2 is a DeliveryAccepted
 * whose payload is kept apart (1: with it inline, as older builds produced it).
 */
export const SUPPORTED_SCHEMA_VERSIONS: readonly number[] = [SCHEMA_VERSION, schemaVersionOf('DeliveryAccepted')];

/** `webhooks.events.v1`: a webhook's lifecycle (enabled, secret rotated, disabled, blocked, unblocked, held, released, retention changed). */
export namespace WebhookLifecycleMessage {
  export const topic = KafkaTopics.webhookEvents;
  export type EventType = WebhookEvent['type'];
  /** The webhook id. */
  export type Key = WebhookEvent['data']['webhookId'];
  export type Value = WebhookEvent['data'];
}

/** `webhooks.events.v1`: an accepted delivery; the dispatcher turns each into exactly one run. */
export namespace DeliveryAcceptedMessage {
  export const topic = KafkaTopics.webhookEvents;
  export const eventType = 'DeliveryAccepted' satisfies DeliveryAccepted['type'];
  /** The webhook id. */
  export type Key = DeliveryAccepted['data']['webhookId'];
  export type Value = DeliveryAccepted['data'];
}

/** `routines.runs.v1`: a run was created. */
export namespace RunCreatedMessage {
  export const topic = KafkaTopics.routineRuns;
  export const eventType = 'RunCreated' satisfies RunCreated['type'];
  /** The routine id. */
  export type Key = RunCreated['data']['routineId'];
  /**
   * The run as consumers have always read it (schema version 2: the payload framed in
   * `initialMessage`, made by the relay from the payload store); once its payload is removed,
   * version 3: `initialMessage` null, with `payloadState` and `payloadRemovedAt`.
   */
  export type Value = Omit<RunCreated['data'], 'framing' | 'legacyInitialMessage'> & {
    readonly initialMessage: string | null;
    readonly payloadState?: 'expired' | 'erased';
    readonly payloadRemovedAt?: string | null;
  };
}

/**
 * The value of a dead letter: where the parked message was, what it named and why it was parked —
 * references only, never its value (the topic is kept forever; a payload there would outlive its
 * retention and any erasure). Identifiers that are not identifier-shaped are null. The event store
 * keeps the park itself (`parked-<event_id>`, else `parked-kafka:<topic>/<partition>/<offset>`).
 */
export interface DeadLetterReference {
  readonly reference_version: 1;
  readonly original_topic: string;
  readonly original_partition: number;
  readonly original_offset: string;
  /** The original key: the webhook id. */
  readonly key: string | null;
  readonly event_id: string | null;
  readonly event_type: string | null;
  readonly stream_id: string | null;
  readonly delivery_id: string | null;
  readonly routine_id: string | null;
  /** Size and SHA-256 (hex) of the original value, which is not kept; the digest is null without one. */
  readonly value_bytes: number;
  readonly value_sha256: string | null;
  readonly error_code: string;
  readonly error: string;
  readonly parked_at: string;
}

/** `webhooks.events.v1.dlq`: a reference to the parked message (never its value), with why it was parked. */
export namespace DeadLetterMessage {
  export const topic = KafkaTopics.webhookEventsDeadLetter;
  /** The original key (the webhook id) when it is one, else none. */
  export type Key = string | null;
  /** JSON. */
  export type Value = DeadLetterReference;
}

/** A relay: its durable checkpoint name is derived from `name`; it reads only these streams. */
export interface RelayDefinition {
  readonly name: string;
  readonly streamPrefixes: readonly string[];
  /** The one topic it writes (routeEvent sends its streams' events there); nobody else may. */
  readonly topic: TopicRole;
}

export const Relays = {
  ingressWebhooks: {
    name: 'ingress-webhooks',
    streamPrefixes: [StreamCategories.webhook, StreamCategories.delivery],
    topic: 'webhookEvents',
  },
  dispatcherRuns: { name: 'dispatcher-runs', streamPrefixes: [StreamCategories.run], topic: 'routineRuns' },
} as const satisfies Record<string, RelayDefinition>;

/** The topics the dispatcher's consumer uses: it reads the events topic and parks on the dead-letter topic. */
export const DISPATCH_CONSUMER_TOPICS: readonly TopicRole[] = ['webhookEvents', 'webhookEventsDeadLetter'];

/** The topics a relay uses: the one it writes, and the leadership topic its group subscribes to. */
export function relayTopics(definition: RelayDefinition): readonly TopicRole[] {
  return [definition.topic, 'relayLeadership'];
}

export interface MessageRoute {
  readonly topic: TopicRole;
  readonly key: string;
}

/** Where a stored event goes and under which key; undefined when it is not published. */
export function routeEvent(event: { readonly streamId: string; readonly type: string; readonly data: unknown }): MessageRoute | undefined {
  const data = event.data as Record<string, unknown> | null;
  const keyOf = (field: string): string | undefined => {
    const value = data?.[field];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  let route: { topic: TopicRole; keyField: string } | undefined;
  if (event.streamId.startsWith(StreamCategories.webhook) && isWebhookEventType(event.type)) {
    route = { topic: 'webhookEvents', keyField: 'webhookId' };
  } else if (event.streamId.startsWith(StreamCategories.delivery) && event.type === DeliveryAcceptedMessage.eventType) {
    route = { topic: 'webhookEvents', keyField: 'webhookId' };
  } else if (event.streamId.startsWith(StreamCategories.run) && event.type === RunCreatedMessage.eventType) {
    route = { topic: 'routineRuns', keyField: 'routineId' };
  }
  if (!route) return undefined;
  const key = keyOf(route.keyField);
  return key === undefined ? undefined : { topic: route.topic, key };
}
