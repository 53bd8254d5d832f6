import type { Event } from '@wts/contracts';
import { comparePositions, type EventStore, type GlobalPosition } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';

interface History<S, E> {
  /** Where each known event of the stream sits in $all, in order. */
  readonly positions: GlobalPosition[];
  /** The known events themselves, in the same order (configuration: a handful per stream). */
  readonly events: E[];
  /** `states[k]`: the state after the stream's first k events (`states[0]` is the initial state). */
  readonly states: S[];
  /** Every event of the stream at or before this position is known. */
  knownThrough: GlobalPosition | undefined;
  /** A read under way. */
  reading: Promise<void> | undefined;
}

/** How a kind of configuration stream folds: its stream name, its initial state and evolve. */
export interface StreamFold<S, E extends Event> {
  readonly streamOf: (id: string) => string;
  readonly initial: S;
  readonly evolve: (state: S, event: E) => S;
}

/** One event of a stream after a given place, with where it sits and the state it left. */
export interface StreamChange<S, E> {
  readonly position: GlobalPosition;
  readonly event: E;
  readonly state: S;
}

/**
 * A configuration stream's state as it was at a given place in $all (what the dispatcher judges a
 * delivery on: its routine, its webhook's hold), without reading the stream for every delivery.
 * The states are kept in memory (configuration: a handful of events per stream, folded once each)
 * and the stream is read again only for a delivery later than what is known, from the next
 * revision on.
 *
 * What a read covers: the head of $all is taken first, then the stream is read. Every event at or
 * before that head was committed before the read began, so the read sees all of the stream's
 * events up to it — one read serves every delivery committed by then (a whole catch-up backlog),
 * not one delivery.
 */
export class StreamHistoryCache<S, E extends Event> {
  private readonly histories = new Map<string, History<S, E>>();

  constructor(
    private readonly store: EventStore,
    private readonly fold: StreamFold<S, E>,
  ) {}

  /** The state just before `position` (the initial state: the stream had no event yet). */
  async at(id: string, position: GlobalPosition): Promise<S> {
    const history = this.historyOf(id);
    while (!covers(history.knownThrough, position)) await this.readMore(id, history, position);
    let known = history.positions.length;
    while (known > 0 && comparePositions(history.positions[known - 1], position) >= 0) known -= 1;
    return history.states[known];
  }

  /** The stream's events after `position` up to now (its whole history known to the head of $all), each with the state it left. */
  async since(id: string, position: GlobalPosition): Promise<StreamChange<S, E>[]> {
    const head = await this.store.headPosition();
    if (head) await this.at(id, head);
    const history = this.historyOf(id);
    const after: StreamChange<S, E>[] = [];
    history.positions.forEach((at, k) => {
      if (comparePositions(at, position) > 0) after.push({ position: at, event: history.events[k], state: history.states[k + 1] });
    });
    return after;
  }

  private historyOf(id: string): History<S, E> {
    let history = this.histories.get(id);
    if (!history) {
      history = { positions: [], events: [], states: [this.fold.initial], knownThrough: undefined, reading: undefined };
      this.histories.set(id, history);
    }
    return history;
  }

  /** One read at a time per stream; callers whose position it covers wait for it instead of reading again. */
  private async readMore(id: string, history: History<S, E>, position: GlobalPosition): Promise<void> {
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
        const fresh = await this.store.readStream(this.fold.streamOf(id), { fromRevision: BigInt(history.positions.length) });
        for (const recorded of fresh) {
          const event = asEvent<E>(recorded);
          history.positions.push(recorded.position);
          history.events.push(event);
          history.states.push(this.fold.evolve(history.states[history.states.length - 1], event));
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
