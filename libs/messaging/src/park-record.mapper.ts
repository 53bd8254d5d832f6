import type { RecordedEvent } from '@wts/event-store';
import type { KafkaMessage } from 'kafkajs';
import type { ConsumerFailure } from './consumer-failure.errors';
import { headerText } from './kafka-message.codec';
import { KafkaHeaders } from './kafka-topics.contract';
import type { ParkRecord } from './park-record';

/** What a park record says of its source, before the error is known. */
export type ParkSource = Omit<ParkRecord, 'error'>;

/** The delivery and routine a park concerns: `deliveryId` and `routineId` of the data, when they are strings. */
export function parkedIdsOf(data: unknown): Pick<ParkRecord, 'deliveryId' | 'routineId'> {
  const fields = typeof data === 'object' && data !== null ? (data as { deliveryId?: unknown; routineId?: unknown }) : undefined;
  const deliveryId = typeof fields?.deliveryId === 'string' ? fields.deliveryId : undefined;
  const routineId = typeof fields?.routineId === 'string' ? fields.routineId : undefined;
  return { ...(deliveryId === undefined ? {} : { deliveryId }), ...(routineId === undefined ? {} : { routineId }) };
}

/** A stored event the relay may have to park: its id, stream, type, delivery and routine. */
export function parkSourceOfEvent(event: RecordedEvent): ParkSource {
  return { sourceEventId: event.id, sourceStream: event.streamId, sourceType: event.type, ...parkedIdsOf(event.data) };
}

/** What a park record says about a message: its ids from the headers, and what the value tells (when it is JSON). */
export function parkRecordOfMessage(
  location: { topic: string; partition: number },
  message: KafkaMessage,
  failure: ConsumerFailure,
): ParkRecord {
  const where = `kafka:${location.topic}/${location.partition}/${message.offset}`;
  return {
    sourceEventId: headerText(message.headers, KafkaHeaders.eventId) ?? where,
    sourceStream: headerText(message.headers, KafkaHeaders.streamId) ?? where,
    sourceType: headerText(message.headers, KafkaHeaders.eventType) ?? 'unknown',
    ...parkedIdsOf(parsedJson(message.value)),
    error: `${failure.code}: ${failure.message}`,
  };
}

/** The value as JSON; undefined when it is not JSON at all. */
function parsedJson(value: Buffer | null): unknown {
  if (value === null) return undefined;
  try {
    return JSON.parse(value.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
