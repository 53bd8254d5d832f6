import { schemaVersionOf, upcastEvent, type Event, type EventMetadata } from '@wts/contracts';
import type { EventToAppend, RecordedEvent } from '@wts/event-store';

export interface CausationContext {
  readonly correlationId: string;
  readonly causationId: string;
  readonly traceparent: string;
}

/** Wraps decided events with ids and metadata for the store. */
export function toAppend(events: readonly Event[], context: CausationContext, newId: () => string): EventToAppend[] {
  return events.map((event) => {
    const eventId = newId();
    const metadata: EventMetadata = {
      eventId,
      correlationId: context.correlationId,
      causationId: context.causationId,
      schemaVersion: schemaVersionOf(event.type),
      traceparent: context.traceparent,
    };
    return { id: eventId, type: event.type, data: event.data, metadata };
  });
}

/**
 * The domain view of a recorded event, in today's shape (older shapes upcast). Data is trusted:
 * only this service writes its streams.
 */
export function asEvent<E extends Event>(recorded: RecordedEvent): E {
  const { type, data } = upcastEvent(recorded);
  return { type, data } as E;
}
