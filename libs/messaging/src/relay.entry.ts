import type { GlobalPosition, RecordedEvent } from '@wts/event-store';
import type { Span } from '@opentelemetry/api';
import { SpanKind, contextOf, traceparentOf, tracer, tracingEnabled } from '@wts/observability';
import type { IHeaders, Message } from 'kafkajs';
import { encodeEvent } from './kafka-message.codec';
import { BatchedLookup, PayloadReader, type PayloadLookup } from '@wts/application';
import type { EventStore } from '@wts/event-store';
import { upcastEvent, type RunCreated } from '@wts/contracts';
import { KafkaHeaders, RunCreatedMessage, routeEvent, type KafkaTopicNames } from './kafka-topics.contract';
import { needsPayload, runCreatedWire } from './run-created.codec';
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
  /** What the message adds to a produce request (0 when unpublished); grows once a run's message is framed. */
  bytes: number;
  /**
   * A run framed from its payload: reads the payload (batched with the other entries') and completes
   * the message. Memoised; a failed read is tried again by the next call. Absent: the message is complete.
   */
  readonly complete?: () => Promise<number>;
  /** Where it came from, for a park record. */
  readonly source: ParkSource;
}

/**
 * The entry of a stored event: routed, encoded and sized (with its publish span when tracing is on).
 * A run's message holds its payload framed as untrusted data, which the run does not store: it is
 * completed from the payload store through `payloads` (see RelayEntry.complete).
 */
export function relayEntryOf(event: RecordedEvent, topics: KafkaTopicNames, payloads: BatchedLookup<PayloadLookup>): RelayEntry {
  const route = routeEvent(event);
  const at = event.createdAt.getTime();
  const source = parkSourceOfEvent(event);
  if (!route) return { position: event.position, eventId: event.id, at, bytes: 0, source };
  const encoded = encodeEvent(event, route);
  // The headers are this call's own object (encodeEvent makes them afresh): used as they are, no copy.
  const message: Message = { key: encoded.key, value: encoded.value, headers: encoded.headers as unknown as IHeaders };
  const topic = topics[route.topic];
  const span = tracingEnabled() ? publishSpan(topic, message) : undefined;
  const entry: RelayEntry = { position: event.position, topic, message, eventId: event.id, at, span, bytes: 0, source };
  const run = event.type === RunCreatedMessage.eventType ? (upcastEvent(event).data as RunCreated['data']) : undefined;
  if (run === undefined) return { ...entry, bytes: messageBytes(message) };
  const write = (lookup: PayloadLookup | undefined): number => {
    const wire = runCreatedWire(run, lookup);
    message.value = wire.value;
    (message.headers ?? {})[KafkaHeaders.schemaVersion] = String(wire.schemaVersion);
    return messageBytes(message);
  };
  if (!needsPayload(run)) return { ...entry, bytes: write(undefined) };
  let completing: Promise<number> | undefined;
  const complete = (): Promise<number> => {
    completing ??= payloads.load(run.deliveryId).then(write, (error: unknown) => {
      completing = undefined;
      throw error;
    });
    return completing;
  };
  void complete().catch(() => undefined);
  // Sized as framed at the smallest until complete: the buffer grows by the difference then.
  return { ...entry, bytes: messageBytes(message), complete };
}

/** Runs' payloads, read in batches as the relay's events come in one by one. */
export function runPayloadLookup(store: EventStore): BatchedLookup<PayloadLookup> {
  const reader = new PayloadReader(store);
  return new BatchedLookup((deliveryIds) => reader.lookup(deliveryIds));
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
