import type { Event } from '@wts/contracts';
import type { Decider, Rejection } from '@wts/domain';
import type { EventStore, GlobalPosition, RecordedEvent } from '@wts/event-store';
import { asEvent, toAppend, type CausationContext } from './event-envelope';

export type HandledCommand<E, S> =
  { readonly kind: 'handled'; readonly events: readonly E[]; readonly state: S; readonly position: GlobalPosition | undefined } | Rejection;

const MAX_ATTEMPTS = 5;

/** A stream's state: its events (in today's shape) folded with the decider's evolve. */
export function foldStream<E extends Event, S>(
  recorded: readonly RecordedEvent[],
  decider: Pick<Decider<unknown, E, S>, 'evolve' | 'initialState'>,
): S {
  return recorded.map((r) => asEvent<E>(r)).reduce(decider.evolve, decider.initialState());
}

/**
 * Read the stream, fold it, decide, append with the expected revision. A concurrent writer
 * makes the append conflict: read again and decide again (the decision may change).
 */
export async function handleCommand<C, E extends Event, S>(
  store: EventStore,
  streamId: string,
  decider: Decider<C, E, S>,
  command: C,
  context: CausationContext,
  newId: () => string,
): Promise<HandledCommand<E, S>> {
  for (let attempt = 1; ; attempt++) {
    const recorded = await store.readStream(streamId);
    const state = foldStream(recorded, decider);
    const decision = decider.decide(command, state);
    if (decision.kind === 'rejected') return decision;
    if (decision.events.length === 0) return { kind: 'handled', events: [], state, position: undefined };
    const expected = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision;
    const result = await store.append(streamId, toAppend(decision.events, context, newId), expected);
    if (result.kind === 'appended') {
      return { kind: 'handled', events: decision.events, state: decision.events.reduce(decider.evolve, state), position: result.position };
    }
    if (attempt >= MAX_ATTEMPTS) {
      return { kind: 'rejected', code: 'concurrent_modification', detail: `${streamId} kept changing; try again` };
    }
  }
}
