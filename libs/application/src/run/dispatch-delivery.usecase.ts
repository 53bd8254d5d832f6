import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { decideRun, derivedEventId } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { toAppend } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.ports';
import { cryptoRandom } from '../shared/system-runtime.adapter';
import { RoutineHistoryCache } from './routine-history.cache';

export interface DeliveryToDispatch {
  readonly delivery: DeliveryAccepted['data'];
  /** Where the delivery sits in $all: the routine is read as it was at that point. */
  readonly position: GlobalPosition;
  readonly eventId: string;
  readonly traceparent: string;
}

export type DispatchOutcome =
  | { readonly kind: 'created'; readonly runId: string }
  | { readonly kind: 'already_created'; readonly runId: string }
  | { readonly kind: 'parked'; readonly runId: string; readonly error: string };

/** What dispatches a delivery: the use case, or a decorator of it (tracing, metrics). */
export type DispatchDelivery = Pick<DispatchDeliveryUseCase, 'execute' | 'park'>;

/**
 * One accepted delivery → exactly one run. `run-<run_id>` is appended with "stream must not
 * exist": a conflict means the run exists (a redelivery or a replay), which is success. The
 * decision depends only on the delivery and the routine as it was at acceptance, so deciding again
 * for a redelivery decides the same: there is nothing to read first. Concurrent calls are safe (the
 * append is the guard) and share the store's commits. Store failures throw: the caller retries
 * without acknowledging, so nothing is lost.
 */
export class DispatchDeliveryUseCase {
  private readonly routines: RoutineHistoryCache;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly random: RandomSource = cryptoRandom,
  ) {
    this.routines = new RoutineHistoryCache(store);
  }

  async execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    const { delivery } = input;
    const runStream = Streams.run(delivery.runId);
    const routine = await this.routines.at(delivery.routineId, input.position);
    const decision = decideRun({ type: 'CreateRun', delivery, routine, now: this.clock.now().toISOString() }, null);
    const context = { correlationId: delivery.deliveryId, causationId: input.eventId, traceparent: input.traceparent };
    if (decision.kind === 'rejected') {
      // Rare: a run made by an earlier build that judged differently is still the delivery's run.
      if ((await this.store.readStream(runStream, { maxCount: 1 })).length > 0) return { kind: 'already_created', runId: delivery.runId };
      return this.park(input, `${decision.code}: ${decision.detail}`);
    }
    if (decision.events.length === 0) return { kind: 'already_created', runId: delivery.runId };
    // "Stream must not exist" is the guard. A fresh event id each time: a redelivery, a replay or a
    // retry after a lost acknowledgement meets the existing run as a conflict (already created),
    // never as an idempotent repeat that would look like a new run.
    const events = toAppend(decision.events, context, () => this.random.uuid());
    const result = await this.store.append(runStream, events, 'no_stream');
    return result.kind === 'appended' ? { kind: 'created', runId: delivery.runId } : { kind: 'already_created', runId: delivery.runId };
  }

  /**
   * Parks a delivery that can never become a run (rejected, or failing the same way again and
   * again), on `parked-<event id>` with its error: kept, visible, replayable — never dropped.
   */
  async park(input: DeliveryToDispatch, error: string): Promise<DispatchOutcome> {
    const context = { correlationId: input.delivery.deliveryId, causationId: input.eventId, traceparent: input.traceparent };
    const parked = {
      type: 'DispatchParked' as const,
      data: {
        sourceEventId: input.eventId,
        sourceStream: Streams.delivery(input.delivery.deliveryId),
        sourceType: 'DeliveryAccepted',
        deliveryId: input.delivery.deliveryId,
        routineId: input.delivery.routineId,
        error,
        parkedAt: this.clock.now().toISOString(),
      },
    };
    await this.store.append(Streams.parked(input.eventId), toAppend([parked], context, () => derivedEventId('DispatchParked', input.eventId)), 'no_stream');
    return { kind: 'parked', runId: input.delivery.runId, error };
  }
}
