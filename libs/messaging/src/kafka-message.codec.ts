/**
 * Stored event → Kafka message, and Kafka message → validated event. Pure functions over plain
 * shapes (structurally compatible with kafkajs' messages), no client library.
 */
import { SIGNED_SCHEMES, upcastEvent, writtenSchemaVersion } from '@wts/contracts';
import { formatPosition, parsePosition, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import {
  CLOUD_EVENTS_DATA_CONTENT_TYPE,
  CLOUD_EVENTS_SPEC_VERSION,
  CLOUD_EVENT_DEFAULT_SUBJECT_FIELD,
  CLOUD_EVENT_SUBJECT_FIELDS,
  CLOUD_EVENT_TYPE_PREFIX,
  CloudEventSources,
} from './cloud-events.contract';
import {
  DeliveryAcceptedMessage,
  KafkaHeaders,
  SUPPORTED_SCHEMA_VERSIONS,
  type EventHeaders,
  type MessageRoute,
  type TopicRole,
} from './kafka-topics.contract';
import { rfc3339 } from './rfc3339.format';

/** A message to produce: value is the event's `data` as JSON. */
export interface OutboundMessage {
  readonly key: string;
  readonly value: string;
  readonly headers: EventHeaders;
}

/** Events written by an older build go out in today's shape (upcast), like every other reader sees them. */
export function encodeEvent(stored: RecordedEvent, route: MessageRoute): OutboundMessage {
  const event = upcastEvent(stored);
  const metadata = (event.metadata ?? {}) as { traceparent?: unknown };
  const schemaVersion = writtenSchemaVersion(event.metadata);
  const headers: Writable<EventHeaders> = {
    'event-type': event.type,
    'event-id': event.id,
    'schema-version': String(schemaVersion),
    'stream-id': event.streamId,
    'stream-revision': event.revision.toString(),
    position: formatPosition(event.position),
    ...(typeof metadata.traceparent === 'string' && metadata.traceparent !== '' ? { traceparent: metadata.traceparent } : {}),
    // CloudEvents, binary mode (kafka-topics.contract.ts, CloudEventHeaders): after the service's own.
    ce_specversion: CLOUD_EVENTS_SPEC_VERSION,
    ce_id: event.id,
    ce_source: cloudEventSource(route.topic),
    ce_type: cloudEventType(event.type),
    ce_time: rfc3339(stored.createdAt),
    'content-type': CLOUD_EVENTS_DATA_CONTENT_TYPE,
  };
  const subject = cloudEventSubject(event.type, event.data);
  if (subject !== undefined) headers.ce_subject = subject;
  return { key: route.key, value: JSON.stringify(withoutLegacyPayload(event.data)), headers };
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

function cloudEventSource(topic: TopicRole): string {
  const source = CloudEventSources[topic];
  if (source === undefined) throw new Error(`no CloudEvents source for topic ${topic}: the relays write no event there`);
  return source;
}

/** `ce_type` of each event type, made once (the relay encodes every event it forwards). */
const cloudEventTypes = new Map<string, string>();

function cloudEventType(eventType: string): string {
  let type = cloudEventTypes.get(eventType);
  if (type === undefined) {
    type = `${CLOUD_EVENT_TYPE_PREFIX}${eventType}`;
    cloudEventTypes.set(eventType, type);
  }
  return type;
}

/** The id the event is about (its value's `deliveryId`, `runId` or `webhookId`); undefined without one. */
function cloudEventSubject(eventType: string, data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const field = Object.hasOwn(CLOUD_EVENT_SUBJECT_FIELDS, eventType)
    ? CLOUD_EVENT_SUBJECT_FIELDS[eventType]
    : CLOUD_EVENT_DEFAULT_SUBJECT_FIELD;
  const value = (data as Record<string, unknown>)[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A delivery written before payloads were kept apart is read with its payload (`legacyPayload`): it never goes to Kafka. */
function withoutLegacyPayload(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || !('legacyPayload' in data)) return data;
  const { legacyPayload: _payload, ...rest } = data as Record<string, unknown>;
  return rest;
}

/** Header values as kafkajs hands them over. */
export type RawHeaders = Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;

/** A consumed message as kafkajs hands it over (only what decoding needs). */
export interface RawMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: RawHeaders;
  readonly offset: string;
}

/** A message that can never be decoded: parked on the dead-letter topic, never retried. */
export class MessageDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MessageDecodeError';
  }
}

/**
 * A message of a schema version newer than this build reads. Not poison: during a rolling deploy
 * the newer producers run before every consumer is upgraded. The consumer retries it in place (its
 * partition waits) until a member that reads the version takes the partition over.
 */
export class UnsupportedSchemaVersionError extends Error {
  constructor(
    readonly schemaVersion: number,
    readonly supported: readonly number[],
  ) {
    super(`schema version ${schemaVersion} is newer than this build reads (${supported.join(', ')})`);
    this.name = 'UnsupportedSchemaVersionError';
  }
}

export interface DecodeOptions {
  /** SUPPORTED_SCHEMA_VERSIONS unless given (tests play an upgraded build). */
  readonly supportedSchemaVersions?: readonly number[];
}

/** A decoded, validated event as the dispatcher's handlers receive it. */
export interface InboundEvent<TValue = unknown> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly eventType: string;
  readonly eventId: string;
  readonly schemaVersion: number;
  readonly traceparent: string;
  readonly streamId: string;
  readonly streamRevision: bigint;
  readonly position: GlobalPosition;
  readonly value: TValue;
}

export function headerText(headers: RawHeaders | undefined, name: string): string | undefined {
  const raw = headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined ? undefined : first.toString();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Validates a value of one event type; throws MessageDecodeError. */
export type ValueDecoder<T> = (value: unknown) => T;

/**
 * Headers, key and value of a message, validated. Throws MessageDecodeError when it can never be
 * decoded (by any build), UnsupportedSchemaVersionError when a newer build could. The schema
 * version is checked first: a newer version may have another shape.
 */
export function decodeMessage<T>(
  location: { readonly topic: string; readonly partition: number },
  message: RawMessage,
  schema: MessageSchema<T>,
  options: DecodeOptions = {},
): InboundEvent<T> {
  const supported = options.supportedSchemaVersions ?? SUPPORTED_SCHEMA_VERSIONS;
  const required = (name: string): string => {
    const text = headerText(message.headers, name);
    if (text === undefined || text === '') throw new MessageDecodeError(`header "${name}" is missing`);
    return text;
  };
  const schemaText = required(KafkaHeaders.schemaVersion);
  const schemaVersion = /^[1-9]\d{0,8}$/.test(schemaText) ? Number(schemaText) : Number.NaN;
  if (Number.isNaN(schemaVersion)) throw new MessageDecodeError(`schema version "${schemaText}" is not a positive integer`);
  if (!supported.includes(schemaVersion)) {
    if (schemaVersion > Math.max(...supported)) throw new UnsupportedSchemaVersionError(schemaVersion, supported);
    throw new MessageDecodeError(`schema version "${schemaText}" is no longer supported (supported: ${supported.join(', ')})`);
  }
  const eventId = required(KafkaHeaders.eventId);
  if (!UUID.test(eventId)) throw new MessageDecodeError(`header "${KafkaHeaders.eventId}" is not a UUID`);
  const revisionText = required(KafkaHeaders.streamRevision);
  if (!/^\d+$/.test(revisionText)) throw new MessageDecodeError(`header "${KafkaHeaders.streamRevision}" is not a revision`);
  let position: GlobalPosition;
  try {
    position = parsePosition(required(KafkaHeaders.position));
  } catch (error) {
    if (error instanceof MessageDecodeError) throw error;
    throw new MessageDecodeError(`header "${KafkaHeaders.position}" is not a position`);
  }
  const key = message.key?.toString('utf8');
  if (!key) throw new MessageDecodeError('the message has no key');
  if (message.value === null) throw new MessageDecodeError('the message has no value');
  let json: unknown;
  try {
    json = JSON.parse(message.value.toString('utf8'));
  } catch {
    throw new MessageDecodeError('the value is not JSON');
  }
  const value = schema.decodeValue(json);
  if ((value as Json)[schema.keyField] !== key) throw new MessageDecodeError(`the key differs from value.${schema.keyField}`);
  return {
    topic: location.topic,
    partition: location.partition,
    offset: message.offset,
    key,
    eventType: required(KafkaHeaders.eventType),
    eventId,
    schemaVersion,
    traceparent: headerText(message.headers, KafkaHeaders.traceparent) ?? '',
    streamId: required(KafkaHeaders.streamId),
    streamRevision: BigInt(revisionText),
    position,
    value,
  };
}

type Json = Record<string, unknown>;

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MessageDecodeError(`${what} is not an object`);
  return value as Json;
}

function text(source: Json, field: string, what: string): string {
  const value = source[field];
  if (typeof value !== 'string' || value === '') throw new MessageDecodeError(`${what}.${field} is not a non-empty string`);
  return value;
}

/** The value of a `DeliveryAccepted` message: every field the dispatcher relies on, checked. */
export const decodeDeliveryAccepted: ValueDecoder<DeliveryAcceptedMessage.Value> = (value) => {
  const data = object(value, 'value');
  const account = object(data.triggerAccount, 'value.triggerAccount');
  if (data.payload === undefined) {
    // Schema version 2: the payload is kept apart, in the store; the message says what it is.
    if (data.payloadFormat !== 'json' && data.payloadFormat !== 'text')
      throw new MessageDecodeError('value.payloadFormat is neither "json" nor "text"');
    if (!Number.isSafeInteger(data.payloadBytes) || (data.payloadBytes as number) < 0)
      throw new MessageDecodeError('value.payloadBytes is not a byte count');
    if (data.payloadExpiresAt !== null && typeof data.payloadExpiresAt !== 'string')
      throw new MessageDecodeError('value.payloadExpiresAt is neither a string nor null');
  } else {
    // Schema version 1, produced before an upgrade: the payload inline.
    const payload = object(data.payload, 'value.payload');
    if (
      !(payload.format === 'json' && typeof payload.json === 'string') &&
      !(payload.format === 'text' && typeof payload.text === 'string')
    ) {
      throw new MessageDecodeError('value.payload is neither {format:"json",json} nor {format:"text",text}');
    }
  }
  if (data.idempotencyKey !== null && typeof data.idempotencyKey !== 'string') {
    throw new MessageDecodeError('value.idempotencyKey is neither a string nor null');
  }
  for (const field of ['deliveryId', 'webhookId', 'routineId', 'runId', 'contentType', 'requestDigest', 'receivedAt'])
    text(data, field, 'value');
  text(account, 'accountId', 'value.triggerAccount');
  text(account, 'email', 'value.triggerAccount');
  if (data.sender !== undefined) {
    const sender = object(data.sender, 'value.sender');
    if (!(SIGNED_SCHEMES as readonly unknown[]).includes(sender.scheme))
      throw new MessageDecodeError('value.sender.scheme is not a signed scheme');
    if (sender.eventType !== null && typeof sender.eventType !== 'string') {
      throw new MessageDecodeError('value.sender.eventType is neither a string nor null');
    }
  }
  return data as unknown as DeliveryAcceptedMessage.Value;
};

/** How to decode one event type: its value, and which value field its key must equal. */
export interface MessageSchema<T> {
  readonly decodeValue: ValueDecoder<T>;
  readonly keyField: string;
}

/** The event types a consumer may handle; a handler for a type without a schema is a wiring bug. */
export const MESSAGE_SCHEMAS: Readonly<Record<string, MessageSchema<unknown>>> = {
  [DeliveryAcceptedMessage.eventType]: { decodeValue: decodeDeliveryAccepted, keyField: 'webhookId' },
};
