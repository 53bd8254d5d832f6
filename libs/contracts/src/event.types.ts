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
}

/** The schema version of every event type in this package. Bump when a data shape changes. */
export const SCHEMA_VERSION = 1;
