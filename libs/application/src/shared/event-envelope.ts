import { schemaVersionOf, upcastEvent, type ActorRecord, type Event, type EventMetadata } from '@wts/contracts';
import type { EventToAppend, RecordedEvent } from '@wts/event-store';

/** Why an event is written: the metadata every stored event carries besides its id and schema version. */
export interface CausationContext {
  readonly correlationId: string;
  readonly causationId: string;
  readonly traceparent: string;
  /** Who asked for it (admin writes): the audit trail's actor. */
  readonly actor?: ActorRecord;
}

/**
 * The causation of what is written: correlation (the delivery id where there is one, else the
 * request's or the cause's own id), the id of the event or request that caused it, and the trace it
 * continues ('' when there is none). With `toAppend`, the one way event metadata is put together.
 */
export function causedBy(correlationId: string, causationId: string, traceparent = '', actor?: ActorRecord): CausationContext {
  return actor === undefined ? { correlationId, causationId, traceparent } : { correlationId, causationId, traceparent, actor };
}

/** The stored metadata of one event: its id, its type's schema version and its causation. */
export function eventMetadata(eventId: string, eventType: string, context: CausationContext): EventMetadata {
  return {
    eventId,
    correlationId: context.correlationId,
    causationId: context.causationId,
    schemaVersion: schemaVersionOf(eventType),
    traceparent: context.traceparent,
    ...(context.actor === undefined ? {} : { actor: actorRecord(context.actor) }),
  };
}

/** The actor's own fields only: nothing else an object passed as the actor carries reaches the store. */
function actorRecord(actor: ActorRecord): ActorRecord {
  return { kind: actor.kind, subject: actor.subject, display: actor.display, displayVerified: actor.displayVerified };
}

/** Wraps decided events with ids and metadata for the store. */
export function toAppend(events: readonly Event[], context: CausationContext, newId: () => string): EventToAppend[] {
  return events.map((event) => {
    const eventId = newId();
    return { id: eventId, type: event.type, data: event.data, metadata: eventMetadata(eventId, event.type, context) };
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
