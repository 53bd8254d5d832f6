import type { RecordedEvent } from '@wts/event-store';

/** applied: folded; known: at or before what is folded (a repeat); gap: a revision is missing before it (read the stream). */
export type ApplyOutcome = 'applied' | 'known' | 'gap' | 'ignored';

/** One stream's state as folded, with the revision of the last event folded into it. */
export interface Folded<S> {
  readonly state: S;
  readonly revision: bigint;
}

/** The next state of a stream from its current one (undefined: nothing of it folded yet) and its next event. */
export type Evolve<S> = (current: S | undefined, recorded: RecordedEvent, id: string) => S;

/** Where an event's revision stands against the one folded: the next one, a repeat, or past a gap. */
export function ordering(folded: bigint, revision: bigint): 'next' | 'known' | 'gap' {
  if (revision <= folded) return 'known';
  return revision === folded + 1n ? 'next' : 'gap';
}

/**
 * The streams of one category, each folded by its own revision (keyed by the id after the category
 * prefix): an event is folded only when it is the next one of its stream, exactly once.
 */
export class FoldedStreams<S> {
  private readonly folded = new Map<string, Folded<S>>();

  /** The revision folded for the stream (-1n: nothing of it). */
  revisionOf(id: string): bigint {
    return this.folded.get(id)?.revision ?? -1n;
  }

  get(id: string): S | undefined {
    return this.folded.get(id)?.state;
  }

  /** Folds `recorded` with `evolve` when it is the stream's next event; otherwise says why not. */
  apply(id: string, recorded: RecordedEvent, evolve: Evolve<S>): 'applied' | 'known' | 'gap' {
    const current = this.folded.get(id);
    const order = ordering(current?.revision ?? -1n, recorded.revision);
    if (order !== 'next') return order;
    this.folded.set(id, { state: evolve(current?.state, recorded, id), revision: recorded.revision });
    return 'applied';
  }

  /** Every stream's state, in the order each was first folded. */
  *states(): IterableIterator<S> {
    for (const entry of this.folded.values()) yield entry.state;
  }
}
