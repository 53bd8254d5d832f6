import { schemaVersionOf } from './event.contract';

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
  const metadata = { ...(event.metadata as object | null), schemaVersion: current };
  const data = event.data as Record<string, unknown>;
  if (event.type === 'RunCreated') return { ...event, data: upcastRunData(data), metadata };
  if (event.type === 'DeliveryAccepted') return { ...event, data: upcastDeliveryData(data), metadata };
  return event;
}

/**
 * Version 1 carried the payload a second time next to the framed initial message; versions 1 and 2
 * stored the framed message itself, kept as it was written (`legacyInitialMessage`).
 */
function upcastRunData(data: Record<string, unknown>): Record<string, unknown> {
  const upcast: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(data)) {
    if (field === 'payload') continue;
    if (field === 'initialMessage') upcast.framing = null;
    else upcast[field] = value;
  }
  if ('initialMessage' in data) upcast.legacyInitialMessage = data.initialMessage;
  return upcast;
}

/** Version 1 carried the payload inline: it stays readable there (`legacyPayload`), never removed. */
function upcastDeliveryData(data: Record<string, unknown>): Record<string, unknown> {
  const upcast: Record<string, unknown> = {};
  const payload = data.payload as { format?: unknown; json?: unknown; text?: unknown } | undefined;
  const text = payload?.format === 'json' ? payload.json : payload?.text;
  for (const [field, value] of Object.entries(data)) {
    if (field !== 'payload') {
      upcast[field] = value;
      continue;
    }
    upcast.payloadFormat = payload?.format;
    upcast.payloadBytes = typeof text === 'string' ? new TextEncoder().encode(text).length : 0;
    upcast.payloadExpiresAt = null;
  }
  if (payload !== undefined) upcast.legacyPayload = payload;
  return upcast;
}

/**
 * A DeliveryAccepted's data in today's shape without the payload, whichever version wrote it: what
 * a Kafka notice and the stored event are compared on (a version 1 event relayed before an upgrade
 * carried its payload, one relayed after does not; the store holds the same event either way).
 */
export function comparableDeliveryData(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const { legacyPayload: _legacy, ...rest } = upcastDeliveryData(data as Record<string, unknown>);
  return rest;
}
