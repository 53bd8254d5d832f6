import { Streams, type DeliveryAccepted, type RoutineEvent, type RunEvent } from '@wts/contracts';
import { decideRun, derivedEventId, evolveRoutine, type Routine } from '@wts/domain';
import { comparePositions, type EventStore, type GlobalPosition } from '@wts/event-store';
import { asEvent, toAppend } from '../shared/event-envelope';
import type { Clock } from '../shared/runtime.ports';

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

/**
 * One accepted delivery → exactly one run. `run-<run_id>` is appended with "stream must not
 * exist": a conflict means the run exists (a redelivery or a replay), which is success.
 * Store failures throw: the caller retries without acknowledging, so nothing is lost.
 */
export class DispatchDeliveryUseCase {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  async execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    const { delivery } = input;
    const runStream = Streams.run(delivery.runId);
    const existing = await this.store.readStream(runStream);
    const state = existing.length === 0 ? null : asEvent<RunEvent>(existing[0]).data;
    const decision = decideRun(
      { type: 'CreateRun', delivery, routine: await this.routineAt(delivery.routineId, input.position), now: this.clock.now().toISOString() },
      state,
    );
    const context = { correlationId: delivery.deliveryId, causationId: input.eventId, traceparent: input.traceparent };
    if (decision.kind === 'rejected') return this.park(input, `${decision.code}: ${decision.detail}`);
    if (decision.events.length === 0) return { kind: 'already_created', runId: delivery.runId };
    // Deterministic event id: a retried append after a lost acknowledgement is recognised by the store.
    const events = toAppend(decision.events, context, () => derivedEventId('RunCreated', delivery.runId));
    const result = await this.store.append(runStream, events, 'no_stream');
    return result.kind === 'appended' ? { kind: 'created', runId: delivery.runId } : { kind: 'already_created', runId: delivery.runId };
  }

  private async routineAt(routineId: string, position: GlobalPosition): Promise<Routine> {
    const recorded = await this.store.readStream(Streams.routine(routineId));
    return recorded
      .filter((event) => comparePositions(event.position, position) < 0)
      .map((event) => asEvent<RoutineEvent>(event))
      .reduce(evolveRoutine, null);
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
