import { InvalidAppendError } from './event-store.errors';
import type { EventToAppend } from './event-store.port';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An event ready to be written: validated id, JSON already serialized. */
export interface SerializedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

/** What every adapter requires of an append's stream id, checked before any I/O: a non-empty string. */
export function assertStreamId(streamId: string): void {
  if (typeof streamId !== 'string' || streamId.length === 0) {
    throw new InvalidAppendError('stream id must be a non-empty string');
  }
}

/**
 * Validates and serializes an append before any I/O (a bad request is never a 503): the ids (see
 * validatedEventIds), then per event what the adapter itself refuses (`assertAccepted`), its data
 * and metadata as JSON, and their size against the store's limit.
 */
export function serializeEvents(
  events: readonly EventToAppend[],
  maxEventBytes: number,
  assertAccepted: (event: EventToAppend, id: string) => void = acceptAll,
): SerializedEvent[] {
  const ids = validatedEventIds(events);
  return events.map((event, index) => {
    const id = ids[index];
    assertAccepted(event, id);
    const serialized = {
      id,
      type: event.type,
      data: eventJson(event.data, id, 'data'),
      metadata: eventJson(event.metadata, id, 'metadata'),
    };
    assertEventSize(id, serialized.data, serialized.metadata, maxEventBytes);
    return serialized;
  });
}

const acceptAll = (): void => undefined;

/** Refuses an event whose data and metadata together exceed the store's limit (a request that can never succeed). */
function assertEventSize(id: string, data: string, metadata: string, maxEventBytes: number): void {
  const bytes = Buffer.byteLength(data) + Buffer.byteLength(metadata);
  if (bytes > maxEventBytes) {
    throw new InvalidAppendError(`event ${id} is ${bytes} bytes, above the store's limit of ${maxEventBytes} bytes per event`);
  }
}

/**
 * What every adapter requires of an append, checked before any I/O (a bad request is never a
 * 503): UUID ids, each once per append, and a type. Returns the ids lower-cased, in order.
 */
function validatedEventIds(events: readonly EventToAppend[]): string[] {
  if (!Array.isArray(events)) throw new InvalidAppendError('events must be an array');
  const seen = new Set<string>();
  return events.map((event) => {
    if (typeof event.id !== 'string' || !UUID.test(event.id)) {
      throw new InvalidAppendError(`event id must be a UUID, got ${JSON.stringify(event.id)}`);
    }
    const id = event.id.toLowerCase();
    if (seen.has(id)) throw new InvalidAppendError(`event id ${id} appears twice in one append`);
    seen.add(id);
    if (typeof event.type !== 'string' || event.type.length === 0) {
      throw new InvalidAppendError(`event ${id} has no type`);
    }
    return id;
  });
}

/** The JSON text of an event's `field` (data or metadata); InvalidAppendError when it has none. */
function eventJson(value: object, id: string, field: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidAppendError(`event ${id} ${field} is not JSON-serializable`, { cause: error });
  }
  if (json === undefined) throw new InvalidAppendError(`event ${id} ${field} is not JSON-serializable`);
  return json;
}
