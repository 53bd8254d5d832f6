import { Streams, type RoutineEvent } from '@wts/contracts';
import { evolveRoutine, type Routine } from '@wts/domain';
import { comparePositions, type EventStore, type GlobalPosition } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';

interface History {
  /** Where each known event of the stream sits in $all, in order. */
  readonly positions: GlobalPosition[];
  /** `states[k]`: the routine after its first k events (`states[0]` is null: not created yet). */
  readonly states: Routine[];
  /** Every event of the stream at or before this position is known. */
  knownThrough: GlobalPosition | undefined;
  /** A read under way. */
  reading: Promise<void> | undefined;
}

/**
 * Each routine as it was at a given place in $all (what the dispatcher judges a delivery on),
 * without reading the routine's stream for every delivery. A routine's states are kept in memory
 * (a routine is configuration: a handful of events, folded once each) and its stream is read again
 * only for a delivery later than what is known, from the next revision on.
 *
 * What a read covers: the head of $all is taken first, then the stream is read. Every event at or
 * before that head was committed before the read began, so the read sees all of the routine's
 * events up to it — one read serves every delivery committed by then (a whole catch-up backlog),
 * not one delivery.
 */
export class RoutineHistoryCache {
  private readonly histories = new Map<string, History>();

  constructor(private readonly store: EventStore) {}

  /** The routine as it was just before `position` (null: it did not exist yet). */
  async at(routineId: string, position: GlobalPosition): Promise<Routine> {
    const history = this.historyOf(routineId);
    while (!covers(history.knownThrough, position)) await this.readMore(routineId, history, position);
    let known = history.positions.length;
    while (known > 0 && comparePositions(history.positions[known - 1], position) >= 0) known -= 1;
    return history.states[known];
  }

  private historyOf(routineId: string): History {
    let history = this.histories.get(routineId);
    if (!history) {
      history = { positions: [], states: [null], knownThrough: undefined, reading: undefined };
      this.histories.set(routineId, history);
    }
    return history;
  }

  /** One read at a time per routine; callers whose position it covers wait for it instead of reading again. */
  private async readMore(routineId: string, history: History, position: GlobalPosition): Promise<void> {
    if (history.reading) {
      // The caller's loop looks again once it is done: it covers this position, or another read follows.
      await history.reading;
      return;
    }
    const done = (async () => {
      try {
        // `position` is committed (the caller holds its event), so the head is at or after it.
        const head = await this.store.headPosition();
        const covered = head && comparePositions(head, position) > 0 ? head : position;
        const fresh = await this.store.readStream(Streams.routine(routineId), { fromRevision: BigInt(history.positions.length) });
        for (const event of fresh) {
          history.positions.push(event.position);
          history.states.push(evolveRoutine(history.states[history.states.length - 1], asEvent<RoutineEvent>(event)));
        }
        if (!covers(history.knownThrough, covered)) history.knownThrough = covered;
      } finally {
        history.reading = undefined;
      }
    })();
    history.reading = done;
    await done;
  }
}

function covers(knownThrough: GlobalPosition | undefined, position: GlobalPosition): boolean {
  return knownThrough !== undefined && comparePositions(knownThrough, position) >= 0;
}
