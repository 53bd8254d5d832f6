import { Streams, type DeliveryAccepted, type DeliveryEvent, type DeliveryFiltered } from '@wts/contracts';
import {
  decideDelivery,
  deliveryIdForIdempotencyKey,
  idempotencyIndexId,
  judgeRepeat,
  reject,
  runIdForDelivery,
  timeOrderedId,
  type AcceptDelivery,
  type Rejection,
} from '@wts/domain';
import {
  EventStoreUnavailableError,
  InvalidAppendError,
  type AppendResult,
  type EventStore,
  type PayloadAttachment,
} from '@wts/event-store';
import { AppendOutcomeUnknownError } from './append-outcome.errors';
import { asEvent, causedBy, toAppend } from '../shared/event-envelope';
import type { RandomSource } from '../shared/runtime.port';

/** The delivery's payload as the store keeps it, under the delivery id. */
function payloadAttachment(command: AcceptDelivery): PayloadAttachment {
  const { payload } = command;
  return {
    key: command.deliveryId,
    webhookId: command.webhookId,
    format: payload.format,
    text: payload.format === 'json' ? payload.json : payload.text,
    receivedAt: Date.parse(command.now),
    expiresAt: Date.parse(command.payloadExpiresAt),
  };
}

/** What the endpoint has decided to accept, less the ids the appender picks. */
export type DeliveryToAccept = Omit<AcceptDelivery, 'deliveryId' | 'runId'>;

export type AppendedDelivery = { readonly delivery: DeliveryAccepted['data']; readonly replayed: boolean };

/**
 * Appends an accepted delivery on its own stream with "stream must not exist": under a fresh
 * time-ordered id, or under the id an idempotency key derives (a repeat replays the delivery the
 * key already made). The delivery decider judges a repeat; the store's answer is the guard.
 */
export class DeliveryAppender {
  constructor(
    private readonly store: EventStore,
    private readonly random: RandomSource,
  ) {}

  async appendFresh(base: DeliveryToAccept, traceparent: string): Promise<AppendedDelivery | Rejection> {
    const deliveryId = timeOrderedId('delivery', Date.parse(base.now), this.random.bytes(16));
    const outcome = await this.tryAppend({ ...base, deliveryId, runId: runIdForDelivery(deliveryId) }, null, traceparent);
    if (outcome === 'conflict') throw new Error(`random delivery id ${deliveryId} collided`);
    return outcome;
  }

  /**
   * Records a delivery the webhook's filter turned away, under a fresh id on its own stream: no
   * payload is kept and no run follows. Not on the idempotency chain (the filter comes before
   * idempotency): a repeat is judged afresh, by the filter as it then stands.
   */
  async appendFiltered(
    base: DeliveryToAccept,
    rule: { readonly eventType: string; readonly filterDigest: string },
    traceparent: string,
  ): Promise<string> {
    const deliveryId = timeOrderedId('delivery', Date.parse(base.now), this.random.bytes(16));
    const payloadBytes = Buffer.byteLength(base.payload.format === 'json' ? base.payload.json : base.payload.text, 'utf8');
    const event: DeliveryFiltered = {
      type: 'DeliveryFiltered',
      data: {
        deliveryId,
        webhookId: base.webhookId,
        routineId: base.routineId,
        eventType: rule.eventType,
        contentType: base.contentType,
        payloadBytes,
        requestDigest: base.requestDigest,
        receivedAt: base.now,
        filterDigest: rule.filterDigest,
      },
    };
    const stream = Streams.filteredDelivery(deliveryId);
    const context = causedBy(deliveryId, deliveryId, traceparent);
    try {
      const result = await this.store.append(
        stream,
        toAppend([event], context, () => this.random.uuid()),
        'no_stream',
      );
      if (result.kind === 'conflict') throw new Error(`random delivery id ${deliveryId} collided`);
    } catch (error) {
      // Sent, not confirmed: the caller may retry; a second record of a filtered delivery makes no run.
      if (error instanceof EventStoreUnavailableError) throw new AppendOutcomeUnknownError(deliveryId, { cause: error });
      throw error;
    }
    return deliveryId;
  }

  /**
   * The key names a chain of delivery streams, one per retention window of reuse (a generation).
   * The key's index stream says which generation is the newest (its head revision + 1), so a
   * lookup costs the same however often the key was reused: one look at the index's head, one read
   * of that generation's delivery, and — when it fell out of the window — one append to the index
   * and one read of the next. Concurrent repeats race on "stream must not exist": exactly one
   * appends, the others read it and replay.
   */
  async appendIdempotent(base: DeliveryToAccept, key: string, traceparent: string): Promise<AppendedDelivery | Rejection> {
    const index = Streams.idempotencyKey(idempotencyIndexId(base.webhookId, key));
    let generation = Number((await this.store.streamHeads([index])).get(index) ?? -1n) + 1;
    for (;;) {
      const deliveryId = deliveryIdForIdempotencyKey(base.webhookId, key, generation);
      const existing = await this.readDelivery(deliveryId);
      if (
        existing &&
        judgeRepeat(existing, base.requestDigest, Date.parse(base.now), base.retentionMs, base.legacyRequestDigest).kind === 'expired'
      ) {
        generation = await this.advanceGeneration(index, base.webhookId, generation, traceparent);
        continue;
      }
      const outcome = await this.tryAppend({ ...base, deliveryId, runId: runIdForDelivery(deliveryId) }, existing, traceparent);
      if (outcome !== 'conflict') return outcome;
    }
  }

  /**
   * Records that `from` expired: generation `from + 1` is the key's newest. The index event of
   * generation g sits at revision g - 1, so a concurrent advance is a conflict, and the winner's
   * generation (or a later one) is taken.
   */
  private async advanceGeneration(index: string, webhookId: string, from: number, traceparent: string): Promise<number> {
    const next = from + 1;
    const event = { type: 'IdempotencyGenerationAdvanced' as const, data: { webhookId, generation: next } };
    const context = causedBy(index, index, traceparent);
    const expected = from === 0 ? 'no_stream' : BigInt(from - 1);
    const result = await this.store.append(
      index,
      toAppend([event], context, () => this.random.uuid()),
      expected,
    );
    return result.kind === 'conflict' ? Math.max(next, Number(result.actualRevision) + 1) : next;
  }

  private async tryAppend(
    command: AcceptDelivery,
    existing: DeliveryAccepted['data'] | null,
    traceparent: string,
  ): Promise<AppendedDelivery | Rejection | 'conflict'> {
    const decision = decideDelivery(command, existing);
    if (decision.kind === 'rejected') return decision;
    if (decision.events.length === 0 && existing) return { delivery: existing, replayed: true };
    const context = causedBy(command.deliveryId, command.deliveryId, traceparent);
    const events = toAppend(decision.events, context, () => this.random.uuid());
    let result: AppendResult;
    try {
      // The payload is kept apart (so it can expire or be erased) and stored if and only if the event is.
      result = await this.store.append(Streams.delivery(command.deliveryId), events, 'no_stream', { payload: payloadAttachment(command) });
    } catch (error) {
      // Sent, not confirmed: it may be durable. Never "nothing was accepted" (a retry without the key could make a second run).
      if (error instanceof EventStoreUnavailableError) throw new AppendOutcomeUnknownError(command.deliveryId, { cause: error });
      // The store refused the event as too large (a limit below what the start-up check assumed): the body's fault, a 413.
      if (error instanceof InvalidAppendError)
        return reject('payload_too_large', 'the body makes an event larger than the event store accepts');
      throw error;
    }
    if (result.kind === 'conflict') return 'conflict' as const;
    return { delivery: (decision.events[0] as DeliveryAccepted).data, replayed: false };
  }

  private async readDelivery(deliveryId: string): Promise<DeliveryAccepted['data'] | null> {
    const recorded = await this.store.readStream(Streams.delivery(deliveryId));
    return recorded.length === 0 ? null : asEvent<DeliveryEvent>(recorded[0]).data;
  }
}
