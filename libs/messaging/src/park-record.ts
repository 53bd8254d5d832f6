import { ParkDispatchUseCase, systemClock, type Clock } from '@wts/application';
import type { DispatchParked } from '@wts/contracts';
import type { EventStore } from '@wts/event-store';

/**
 * A message (or event) set aside because it can never be processed, with why: `DispatchParked`'s
 * data less the time it is recorded at. `sourceEventId` is the stored event's id (the `event-id`
 * header), else `kafka:<topic>/<partition>/<offset>`.
 */
export type ParkRecord = Omit<DispatchParked['data'], 'parkedAt'>;

/**
 * Records a park durably; resolves once it is (parking the same source twice is a no-op). The
 * dead-letter topic is not enough on its own: the store keeps every park for as long as the
 * deliveries, and the parked listings and the CLI read it from there (parkInStore).
 */
export type ParkRecorder = (record: ParkRecord) => Promise<void>;

/** Parks in the store (`parked-<source id>`) through the application's one park use case. */
export function parkInStore(store: EventStore, clock: Clock = systemClock): ParkRecorder {
  const park = new ParkDispatchUseCase(store, clock);
  return (record) => park.execute(record);
}
