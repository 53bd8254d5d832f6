import type { ActorRecord } from './access.events';
/** A domain event as deciders produce it: a past-tense type and its data. */
export interface Event<TType extends string = string, TData extends object = object> {
  readonly type: TType;
  readonly data: TData;
}

/**
 * Metadata carried by every stored event. Correlation id is the delivery id where there is one;
 * causation id is the id of the event or request that caused this one.
 */
export interface EventMetadata {
  readonly eventId: string;
  readonly correlationId: string;
  readonly causationId: string;
  readonly schemaVersion: number;
  readonly traceparent: string;
  /** Who asked for it: set on every admin write (absent on events the service writes by itself). */
  readonly actor?: ActorRecord;
}

/** The schema version of an event type whose data shape never changed. */
export const SCHEMA_VERSION = 1;

/**
 * Event types whose data shape changed, with their current version. Bump one when its shape
 * changes, and teach `upcastEvent` (upcast.ts) to read the older shapes.
 * - RunCreated 2: no `payload` (it is stored once, in DeliveryAccepted; the run keeps its framed
 *   `initialMessage`).
 * - RunCreated 3: no `initialMessage` either, but its `framing`: the message is framed when read.
 * - DeliveryAccepted 2: no `payload` (kept apart, in the store's payload store), but its
 *   `payloadFormat`, `payloadBytes` and `payloadExpiresAt`.
 */
export const CHANGED_SCHEMA_VERSIONS: Readonly<Record<string, number>> = { RunCreated: 3, DeliveryAccepted: 2 };

export function schemaVersionOf(eventType: string): number {
  return CHANGED_SCHEMA_VERSIONS[eventType] ?? SCHEMA_VERSION;
}
