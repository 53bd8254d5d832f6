import { Streams, type DeliveryAccepted, type DispatchParked } from '@wts/contracts';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import type { AdminCall } from '../access/admin-call';
import { recordOperatorAction } from '../access/operator-action.recorder';
import type { Clock, RandomSource } from '../shared/runtime.port';
import type { DispatchDelivery, DispatchOutcome } from './dispatch-delivery.usecase';

/** The most parked deliveries one request re-dispatches (one at a time, in the order given). */
export const MAX_REDISPATCH = 100;

export type RedispatchOutcome = DispatchOutcome['kind'] | 'not_found' | 'not_redispatchable';

export interface RedispatchResult {
  readonly source_event_id: string;
  readonly outcome: RedispatchOutcome;
  readonly run_id: string | null;
  readonly detail: string | null;
}

/**
 * Re-dispatch from the Config page, what `replay --to dispatcher` does from the command line: each
 * parked delivery's DeliveryAccepted, read from the store, is handed to the dispatcher's own use
 * case again (its run made at most once: the run stream's "must not exist" guard), judged as things
 * stand at the re-dispatch (the routine, the safety block, the trigger account: fix the cause, then
 * re-dispatch). One that fails again is parked again (a no-op: its park is kept); one accepted while
 * its webhook was held waits for the release; one a discarding release parked runs. A park with no stored delivery behind it (a forged or undecodable Kafka message)
 * has nothing to run. The operator is recorded first, as the command line records a replay.
 */
export class RedispatchParkedUseCase {
  constructor(
    private readonly store: EventStore,
    private readonly dispatch: DispatchDelivery,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  async execute(sourceEventIds: readonly string[], call: AdminCall): Promise<RedispatchResult[]> {
    // Who re-dispatched what is on the audit trail before anything is dispatched.
    const detail = { count: sourceEventIds.length, source_event_ids: sourceEventIds.join(',').slice(0, 1000) };
    const runtime = { store: this.store, clock: this.clock, random: this.random };
    const { traceparent, position } = await recordOperatorAction(runtime, call.actor, 'redispatch_parked', detail, call.traceparent);
    const results: RedispatchResult[] = [];
    for (const sourceEventId of sourceEventIds) results.push(await this.redispatch(sourceEventId, traceparent, position));
    return results;
  }

  private async redispatch(sourceEventId: string, traceparent: string, at: GlobalPosition): Promise<RedispatchResult> {
    const [park] = await this.store.readStream(Streams.parked(sourceEventId), { maxCount: 1 });
    if (park?.type !== 'DispatchParked') return result(sourceEventId, 'not_found', null, 'no parked delivery with this id');
    const { deliveryId } = park.data as DispatchParked['data'];
    const [accepted] = deliveryId ? await this.store.readStream(Streams.delivery(deliveryId), { maxCount: 1 }) : [];
    if (accepted?.type !== 'DeliveryAccepted') {
      return result(
        sourceEventId,
        'not_redispatchable',
        null,
        'no accepted delivery is stored behind this park (a message the store never confirmed)',
      );
    }
    const delivery = accepted.data as DeliveryAccepted['data'];
    const outcome = await this.dispatch.execute({
      delivery,
      position: accepted.position,
      eventId: accepted.id,
      traceparent,
      request: { by: 'redispatch', at },
    });
    const detail =
      outcome.kind === 'parked'
        ? outcome.error
        : outcome.kind === 'held'
          ? 'its webhook was held when it was accepted and is still held: it runs on release'
          : null;
    return result(sourceEventId, outcome.kind, outcome.runId, detail);
  }
}

function result(sourceEventId: string, outcome: RedispatchOutcome, runId: string | null, detail: string | null): RedispatchResult {
  return { source_event_id: sourceEventId, outcome, run_id: runId, detail };
}
