import { Streams, type RoutineEvent } from '@wts/contracts';
import { evolveRoutine, type Routine } from '@wts/domain';
import { comparePositions, type EventStore, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';

interface History {
  readonly events: RecordedEvent[];
  /** Every event of the stream before this position is in `events`. */
  knownBefore: GlobalPosition | undefined;
  /** A read under way. */
  reading: { readonly done: Promise<void> } | undefined;
}

/**
 * Each routine as it was at a given place in $all (what the dispatcher judges a delivery on),
 * without reading the routine's whole stream for every delivery. A routine's events are kept in
 * memory (a routine is configuration: a handful of events) and its stream is read again only for a
 * delivery later than what is known, from the next revision on. Reading after a delivery at P was
 * committed sees every routine event before P, so P becomes known.
 */
export class RoutineHistoryCache {
  private readonly histories = new Map<string, History>();

  constructor(private readonly store: EventStore) {}

  /** The routine as it was just before `position` (null: it did not exist yet). */
  async at(routineId: string, position: GlobalPosition): Promise<Routine> {
    const history = this.historyOf(routineId);
    while (!history.knownBefore || comparePositions(history.knownBefore, position) < 0) await this.readMore(routineId, history, position);
    return history.events
      .filter((event) => comparePositions(event.position, position) < 0)
      .map((event) => asEvent<RoutineEvent>(event))
      .reduce(evolveRoutine, null);
  }

  private historyOf(routineId: string): History {
    let history = this.histories.get(routineId);
    if (!history) {
      history = { events: [], knownBefore: undefined, reading: undefined };
      this.histories.set(routineId, history);
    }
    return history;
  }

  /** One read at a time per routine; callers waiting for a position it covers share it. */
  private async readMore(routineId: string, history: History, position: GlobalPosition): Promise<void> {
    if (history.reading) {
      // The caller's loop looks again once it is done: it may have covered this position.
      await history.reading.done;
      return;
    }
    const done = (async () => {
      try {
        const fresh = await this.store.readStream(Streams.routine(routineId), { fromRevision: BigInt(history.events.length) });
        history.events.push(...fresh);
        if (!history.knownBefore || comparePositions(position, history.knownBefore) > 0) history.knownBefore = position;
      } finally {
        history.reading = undefined;
      }
    })();
    history.reading = { done };
    await done;
  }
}
