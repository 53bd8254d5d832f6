import { Streams, type DispatchParked } from '@wts/contracts';
import { derivedEventId } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { causedBy, toAppend } from '../shared/event-envelope';
import type { Clock } from '../shared/runtime.port';

/**
 * What is parked and why: `DispatchParked`'s data less the time it is recorded at. `sourceEventId`
 * names the park (the stored event's id, an id derived from an unverified message, or
 * `kafka:<topic>/<partition>/<offset>`).
 */
export type DispatchToPark = Omit<DispatchParked['data'], 'parkedAt'>;

/**
 * Parks what can never become a run — a rejected delivery, one failing the same way again and
 * again, an unverifiable or undecodable message — as `DispatchParked` on `parked-<source id>`,
 * with its error: kept, visible, replayable, never dropped. "Stream must not exist" and an event id
 * derived from the source make parking the same source twice a no-op. Correlated with the delivery
 * where there is one, caused by the source.
 */
/** What a caller parks through: the use case, or a decorator of it (metrics). */
export type ParkDispatch = Pick<ParkDispatchUseCase, 'execute'>;

export class ParkDispatchUseCase {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  async execute(park: DispatchToPark, traceparent = ''): Promise<void> {
    const { sourceEventId } = park;
    const parked: DispatchParked = { type: 'DispatchParked', data: { ...park, parkedAt: this.clock.now().toISOString() } };
    const context = causedBy(park.deliveryId ?? sourceEventId, sourceEventId, traceparent);
    await this.store.append(
      Streams.parked(sourceEventId),
      toAppend([parked], context, () => derivedEventId('DispatchParked', sourceEventId)),
      'no_stream',
    );
  }
}
