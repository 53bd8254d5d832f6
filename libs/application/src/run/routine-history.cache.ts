import { Streams, type RoutineEvent } from '@wts/contracts';
import { evolveRoutine, type Routine } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { StreamHistoryCache } from './stream-history.cache';

/** Each routine as it was at a given place in $all (null: not created yet). */
export class RoutineHistoryCache extends StreamHistoryCache<Routine, RoutineEvent> {
  constructor(store: EventStore) {
    super(store, { streamOf: Streams.routine, initial: null, evolve: evolveRoutine });
  }
}
