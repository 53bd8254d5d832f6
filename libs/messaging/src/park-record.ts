import type { DispatchParked } from '@wts/contracts';

/**
 * A message (or event) set aside because it can never be processed, with why: `DispatchParked`'s
 * data less the time it is recorded at. `sourceEventId` is the stored event's id (the `event-id`
 * header), else `kafka:<topic>/<partition>/<offset>`.
 */
export type ParkRecord = Omit<DispatchParked['data'], 'parkedAt'>;

/**
 * Records a park durably; resolves once it is (parking the same source twice is a no-op). The
 * dead-letter topic is not enough on its own: the store keeps every park for as long as the
 * deliveries, and the parked listings and the CLI read it from there — the run-dispatcher records
 * through the application's ParkDispatchUseCase.
 */
export type ParkRecorder = (record: ParkRecord) => Promise<void>;
