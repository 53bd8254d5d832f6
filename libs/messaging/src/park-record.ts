import { Streams, type DispatchParked } from '@wts/contracts';
import type { EventStore, EventToAppend } from '@wts/event-store';
import { randomUUID } from 'node:crypto';

/**
 * A message (or event) set aside because it can never be processed, with why: `DispatchParked`'s
 * data less the time it is recorded at. `sourceEventId` is the stored event's id (the `event-id`
 * header), else `kafka:<topic>/<partition>/<offset>`.
 */
export type ParkRecord = Omit<DispatchParked['data'], 'parkedAt'>;

/** Records a park durably; resolves once it is (parking the same source twice is a no-op). */
export type ParkRecorder = (record: ParkRecord) => Promise<void>;

/**
 * Parks in the event store: `DispatchParked` on `parked-<source event id>` ("stream must not exist":
 * recording twice is harmless). The dead-letter topic is not enough on its own — the store keeps
 * every park for as long as the deliveries, and the parked listings and the CLI read it from there.
 */
export function storeParkRecorder(store: EventStore, now: () => Date = () => new Date()): ParkRecorder {
  return async (record) => {
    const parked: EventToAppend = {
      id: randomUUID(),
      type: 'DispatchParked',
      data: { ...record, parkedAt: now().toISOString() },
      metadata: { correlationId: record.deliveryId ?? record.sourceEventId, causationId: record.sourceEventId, schemaVersion: 1 },
    };
    await store.append(Streams.parked(record.sourceEventId), [parked], 'no_stream');
  };
}
