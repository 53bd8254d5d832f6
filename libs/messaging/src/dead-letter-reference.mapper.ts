import { isWellFormedId, type IdKind } from '@wts/domain';
import type { KafkaMessage } from 'kafkajs';
import { createHash } from 'node:crypto';
import type { ConsumerFailure } from './consumer-failure.errors';
import { headerText } from './kafka-message.codec';
import { KafkaHeaders, type DeadLetterReference } from './kafka-topics.contract';
import type { ParkRecord } from './park-record';

/**
 * The original headers a dead letter keeps: the ones that identify the event. Any other header
 * (whatever a producer added) is dropped: it could carry data.
 */
const REFERENCE_HEADERS = [
  KafkaHeaders.eventType,
  KafkaHeaders.eventId,
  KafkaHeaders.schemaVersion,
  KafkaHeaders.traceparent,
  KafkaHeaders.streamId,
  KafkaHeaders.streamRevision,
  KafkaHeaders.position,
] as const;

/** An identifier (a UUID, a type, a stream, a position, a traceparent): no space, quote, brace or `@` fits — no JSON, sentence or address. */
const IDENTIFIER = /^[A-Za-z0-9_./-]{1,200}$/;

/** The error text is ours (decoding errors name fields, never values); kept to this many characters. */
export const DEAD_LETTER_ERROR_MAX_CHARS = 1000;

/** What is produced to the dead-letter topic for a parked message. */
export interface DeadLetter {
  readonly key: string | null;
  /** A DeadLetterReference as JSON. */
  readonly value: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The dead letter of a parked message: a reference to it (where it was, the ids its headers name,
 * the delivery and routine of its park record, its value's size and digest) and the error — never
 * its value, nor a header that is not a reference. The key is kept only when it is a webhook id.
 */
export function deadLetterOf(
  location: { readonly topic: string; readonly partition: number },
  message: KafkaMessage,
  failure: ConsumerFailure,
  record: ParkRecord,
  parkedAt: Date,
): DeadLetter {
  const kept: Record<string, string> = {};
  for (const name of REFERENCE_HEADERS) {
    const text = headerText(message.headers, name);
    if (text !== undefined && IDENTIFIER.test(text)) kept[name] = text;
  }
  const key = idOrNull('webhook', message.key?.toString('utf8'));
  const error =
    failure.message.length > DEAD_LETTER_ERROR_MAX_CHARS ? `${failure.message.slice(0, DEAD_LETTER_ERROR_MAX_CHARS)}…` : failure.message;
  const reference: DeadLetterReference = {
    reference_version: 1,
    original_topic: location.topic,
    original_partition: location.partition,
    original_offset: message.offset,
    key,
    event_id: kept[KafkaHeaders.eventId] ?? null,
    event_type: kept[KafkaHeaders.eventType] ?? null,
    stream_id: kept[KafkaHeaders.streamId] ?? null,
    delivery_id: idOrNull('delivery', record.deliveryId),
    routine_id: idOrNull('routine', record.routineId),
    value_bytes: message.value?.length ?? 0,
    value_sha256: message.value === null ? null : createHash('sha256').update(message.value).digest('hex'),
    error_code: failure.code,
    error,
    parked_at: parkedAt.toISOString(),
  };
  return {
    key,
    value: JSON.stringify(reference),
    headers: {
      ...kept,
      [KafkaHeaders.error]: error,
      [KafkaHeaders.errorCode]: failure.code,
      [KafkaHeaders.originalTopic]: location.topic,
      [KafkaHeaders.originalPartition]: String(location.partition),
      [KafkaHeaders.originalOffset]: message.offset,
    },
  };
}

function idOrNull(kind: IdKind, value: string | undefined): string | null {
  return value !== undefined && isWellFormedId(kind, value) ? value : null;
}
