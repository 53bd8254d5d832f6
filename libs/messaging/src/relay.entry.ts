import type { GlobalPosition, RecordedEvent } from '@wts/event-store';
import type { Span } from '@opentelemetry/api';
import { SpanKind, contextOf, traceparentOf, tracer, tracingEnabled } from '@wts/observability';
import type { Message } from 'kafkajs';
import { encodeEvent } from './kafka-message.codec';
import { KafkaHeaders, routeEvent, type KafkaTopicNames } from './kafka-topics.contract';
import { parkSourceOfEvent, type ParkSource } from './park-record.mapper';
import { messageBytes } from './produce-batching';

/** An event the relay read from the store, on its way to Kafka. */
export interface RelayEntry {
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
  /** Where it came from, for a park record. */
  readonly source: ParkSource;
}

/** The entry of a stored event: routed, encoded and sized (with its publish span when tracing is on). */
export function relayEntryOf(event: RecordedEvent, topics: KafkaTopicNames): RelayEntry {
  const route = routeEvent(event);
  const at = event.createdAt.getTime();
  const source = parkSourceOfEvent(event);
  if (!route) return { position: event.position, eventId: event.id, at, bytes: 0, source };
  const encoded = encodeEvent(event, route);
  const message: Message = { key: encoded.key, value: encoded.value, headers: { ...encoded.headers } };
  const topic = topics[route.topic];
  const span = tracingEnabled() ? publishSpan(topic, message) : undefined;
  return { position: event.position, topic, message, eventId: event.id, at, span, bytes: messageBytes(message), source };
}

/** A producer span continuing the event's trace; the message carries it on in its traceparent header. */
function publishSpan(topic: string, message: Message): Span {
  const headers = message.headers ?? {};
  const incoming = headers[KafkaHeaders.traceparent];
  const span = tracer().startSpan(
    `publish ${topic}`,
    { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic } },
    contextOf(typeof incoming === 'string' ? incoming : undefined),
  );
  headers[KafkaHeaders.traceparent] = traceparentOf(span);
  message.headers = headers;
  return span;
}

export function batchBytes(batch: readonly RelayEntry[]): number {
  return batch.reduce((sum, entry) => sum + entry.bytes, 0);
}
