import { InvalidAppendError } from './event-store.errors';
import type { EventToAppend } from './event-store.port';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Refuses an event whose data and metadata together exceed the store's limit (a request that can never succeed). */
export function assertEventSize(id: string, data: string, metadata: string, maxEventBytes: number): void {
  const bytes = Buffer.byteLength(data) + Buffer.byteLength(metadata);
  if (bytes > maxEventBytes) {
    throw new InvalidAppendError(`event ${id} is ${bytes} bytes, above the store's limit of ${maxEventBytes} bytes per event`);
  }
}

/**
 * What every adapter requires of an append, checked before any I/O (a bad request is never a
 * 503): UUID ids, each once per append, and a type. Returns the ids lower-cased, in order.
 */
export function validatedEventIds(events: readonly EventToAppend[]): string[] {
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
