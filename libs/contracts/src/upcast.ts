import { schemaVersionOf } from './event.types';

/** A stored event as read back: its type, data and metadata (schemaVersion inside). */
export interface StoredShape {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

/** The schema version an event was written with (events without one predate versioning: 1). */
export function writtenSchemaVersion(metadata: unknown): number {
  const version = (metadata as { schemaVersion?: unknown } | null | undefined)?.schemaVersion;
  return typeof version === 'number' && Number.isSafeInteger(version) && version > 0 ? version : 1;
}

/**
 * Reads an event written by an older build in today's shape, so that everything downstream (use
 * cases, the relay, the CLI) sees one shape per type. Events are never rewritten in the store.
 */
export function upcastEvent<T extends StoredShape>(event: T): T {
  const written = writtenSchemaVersion(event.metadata);
  const current = schemaVersionOf(event.type);
  if (written >= current) return event;
  if (event.type === 'RunCreated') {
    // Version 1 carried the payload a second time next to the framed initial message.
    const { payload: _payload, ...data } = event.data as Record<string, unknown>;
    const metadata = { ...(event.metadata as object | null), schemaVersion: current };
    return { ...event, data, metadata };
  }
  return event;
}
