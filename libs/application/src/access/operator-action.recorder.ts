import { Streams, type ActorRecord, type OperatorActionRecorded } from '@wts/contracts';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { causedBy, toAppend, type CausationContext } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.port';
import { childTraceparent } from '../shared/trace-context';

/**
 * Records, before it starts, what an operator does outside the admin writes' own events (a CLI
 * replay or rebuild, a re-dispatch from the page): one event in a stream of its own, with the
 * operator as its actor. The audit trail lists it like any admin write. `detail` holds the options
 * as given (never a credential). Returns the action's causation: what the operation then writes is
 * caused by it, with its actor (and continues `traceparent`, when the action came with one), and
 * where the action sits in $all (what a re-dispatch is judged as of).
 */
export async function recordOperatorAction(
  runtime: { readonly store: EventStore; readonly clock: Clock; readonly random: RandomSource },
  actor: ActorRecord,
  action: OperatorActionRecorded['data']['action'],
  detail: OperatorActionRecorded['data']['detail'],
  traceparent?: string,
): Promise<RecordedOperatorAction> {
  const id = runtime.random.uuid();
  const event: OperatorActionRecorded = { type: 'OperatorActionRecorded', data: { action, detail, at: runtime.clock.now().toISOString() } };
  const context = causedBy(id, id, childTraceparent(traceparent, runtime.random), actor);
  const result = await runtime.store.append(
    Streams.operatorAction(id),
    toAppend([event], context, () => id),
    'no_stream',
  );
  if (result.kind !== 'appended') throw new Error(`${Streams.operatorAction(id)} already exists: the operator action was not recorded`);
  return { ...context, position: result.position };
}

/** A recorded operator action: the causation of what it writes, and its place in $all. */
export type RecordedOperatorAction = CausationContext & { readonly position: GlobalPosition };
