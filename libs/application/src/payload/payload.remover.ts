import { Streams, type DeliveryEvent, type PayloadsRemoved, type RunWithheld } from '@wts/contracts';
import { PAYLOAD_REMOVED_DETAIL, derivedEventId } from '@wts/domain';
import type { EventStore, PayloadRemovalReason, RecordedEvent } from '@wts/event-store';
import { ParkDispatchUseCase } from '../run/park-dispatch.usecase';
import { asEvent, causedBy, toAppend } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.port';

/** The most deliveries one removal takes (the payload store's own bound on one removal). */
export const MAX_REMOVAL_BATCH = 1000;

export interface RemovalRequest {
  readonly reason: PayloadRemovalReason;
  /** The erasure removing them (null for an expiry). */
  readonly erasureId: string | null;
}

/** The park's error of a delivery whose payload went before its run was made. */
export const PAYLOAD_REMOVED = `payload_removed: ${PAYLOAD_REMOVED_DETAIL}`;

/**
 * Removes deliveries' payloads without ever letting a run be made from a removed one, and records
 * it. Of the deliveries given, only payloads still kept are touched. In order:
 * 1. each of them without a run yet gets `RunWithheld` on its run stream ("stream must not exist":
 *    a run made first keeps its payload's record and this conflicts; made after, the dispatcher's
 *    RunCreated conflicts and it parks the delivery) and is parked `payload_removed` at once (a
 *    held or lagging delivery shows why it will never run);
 * 2. `PayloadsRemoved` is appended (a crash after it leaves the payloads kept: found again, removed
 *    again, and the event recorded twice, which projections take as one fact);
 * 3. the payloads are overwritten in the store.
 * Idempotent: a removal repeated after a crash at any step ends in the same state.
 */
export class PayloadRemover {
  private readonly park: ParkDispatchUseCase;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {
    this.park = new ParkDispatchUseCase(store, clock);
  }

  /** How many payloads were removed now (at most MAX_REMOVAL_BATCH deliveries a call). */
  async remove(deliveryIds: readonly string[], request: RemovalRequest, traceparent = ''): Promise<number> {
    if (deliveryIds.length > MAX_REMOVAL_BATCH) throw new RangeError(`at most ${MAX_REMOVAL_BATCH} deliveries a removal`);
    const stored = await this.store.payloads().get(deliveryIds);
    const kept = deliveryIds.filter((deliveryId) => stored.get(deliveryId)?.state === 'kept');
    if (kept.length === 0) return 0;
    const now = this.clock.now();
    await this.withholdRuns(kept, now, traceparent);
    const batchId = this.random.uuid();
    const removed: PayloadsRemoved = {
      type: 'PayloadsRemoved',
      data: { reason: request.reason, erasureId: request.erasureId, removedAt: now.toISOString(), deliveryIds: kept },
    };
    const context = causedBy(request.erasureId ?? batchId, request.erasureId ?? batchId, traceparent);
    await this.store.append(
      Streams.payloadRemoval(batchId),
      toAppend([removed], context, () => this.random.uuid()),
      'no_stream',
    );
    return this.store.payloads().remove(kept, { reason: request.reason, erasureId: request.erasureId, at: now.getTime() });
  }

  /** Each delivery's run stream is named by its DeliveryAccepted (its runId): read, not derived, so any history is guarded exactly. */
  private async withholdRuns(deliveryIds: readonly string[], now: Date, traceparent: string): Promise<void> {
    const deliveries = await Promise.all(
      deliveryIds.map(async (deliveryId) => (await this.store.readStream(Streams.delivery(deliveryId), { maxCount: 1 }))[0]),
    );
    const accepted = deliveries.filter((recorded): recorded is RecordedEvent => recorded?.type === 'DeliveryAccepted');
    const runStreams = accepted.map((recorded) => Streams.run(asEvent<DeliveryEvent>(recorded).data.runId));
    const heads = await this.store.streamHeads(runStreams);
    const withoutRun = accepted.filter((_, i) => (heads.get(runStreams[i]) ?? -1n) === -1n);
    await Promise.all(withoutRun.map((recorded) => this.withhold(recorded, now, traceparent)));
  }

  private async withhold(recorded: RecordedEvent, now: Date, traceparent: string): Promise<void> {
    const delivery = asEvent<DeliveryEvent>(recorded).data;
    const { deliveryId, runId } = delivery;
    const withheld: RunWithheld = {
      type: 'RunWithheld',
      data: { runId, deliveryId, reason: 'payload_removed', withheldAt: now.toISOString() },
    };
    const context = causedBy(deliveryId, deliveryId, traceparent);
    const result = await this.store.append(
      Streams.run(runId),
      toAppend([withheld], context, () => derivedEventId('RunWithheld', runId)),
      'no_stream',
    );
    if (result.kind === 'conflict') return; // its run was made first: it stands
    await this.park.execute(
      {
        sourceEventId: recorded.id,
        sourceStream: Streams.delivery(deliveryId),
        sourceType: 'DeliveryAccepted',
        deliveryId,
        routineId: delivery.routineId,
        error: PAYLOAD_REMOVED,
      },
      traceparent,
    );
  }
}
