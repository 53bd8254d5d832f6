import type { TopicRole } from './kafka-topics.contract';

/**
 * The CloudEvents attributes of every relayed message, as headers: the CloudEvents Kafka protocol
 * binding (1.0), binary content mode — the value stays the event's `data` as it is, each attribute
 * is a `ce_<name>` header, and `datacontenttype` is Kafka's own `content-type` header (the binding
 * maps it there, never to a `ce_datacontenttype`). Beside the headers above, never instead of them.
 * CloudEvents SDKs and routers read the messages as events (`docs/kafka.md`, "CloudEvents").
 */
export const CloudEventHeaders = {
  specVersion: 'ce_specversion',
  /** The stored event's id: the same as `event-id`, so (source, id) names one event on every copy. */
  id: 'ce_id',
  source: 'ce_source',
  type: 'ce_type',
  /** When the event was recorded in the store, RFC 3339 in UTC with milliseconds. */
  time: 'ce_time',
  /** The id of what the event is about: the delivery, the run, or the webhook. */
  subject: 'ce_subject',
  /** `datacontenttype`. */
  contentType: 'content-type',
} as const;

/** The CloudEvents spec version the messages follow. */
export const CLOUD_EVENTS_SPEC_VERSION = '1.0';

/** Every value is JSON (the `datacontenttype`, the `content-type` header). */
export const CLOUD_EVENTS_DATA_CONTENT_TYPE = 'application/json';

/**
 * `ce_type` is this prefix and the event type (`com.wts.DeliveryAccepted`, `com.wts.RunCreated`):
 * reverse-DNS as the spec recommends, one type per event type of the contracts, never versioned (the
 * shape's version is the `schema-version` header). Stable: routers match on it.
 */
export const CLOUD_EVENT_TYPE_PREFIX = 'com.wts.';

/**
 * `ce_source` of each topic the relays write: `urn:wts:<producing service>:<topic without its major
 * version>`. An absolute URI (the spec's recommendation) that names who produces the stream and
 * which stream, and nothing that varies: not a host, a replica, a test's topic prefix, the relay or
 * the CLI replay that sent the copy, nor the topic's `.vN` (the same event re-published on a next
 * version of the topic is the same event: same source, same id).
 */
export const CloudEventSources: { readonly [R in TopicRole]?: string } = {
  webhookEvents: 'urn:wts:ingress:webhooks.events',
  routineRuns: 'urn:wts:run-dispatcher:routines.runs',
};

/** The value field whose id is an event's `ce_subject`: the delivery, the run; any other event is a webhook's. */
export const CLOUD_EVENT_SUBJECT_FIELDS: Readonly<Record<string, string>> = {
  DeliveryAccepted: 'deliveryId',
  RunCreated: 'runId',
};
export const CLOUD_EVENT_DEFAULT_SUBJECT_FIELD = 'webhookId';
