import { Streams, upcastEvent, type DeliveryAccepted } from '@wts/contracts';
import { checkDeliveryNotice, derivedEventId } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { createHash } from 'node:crypto';
import type { DispatchDelivery, DispatchOutcome } from './dispatch-delivery.usecase';
import type { DispatchToPark, ParkDispatch } from './park-dispatch.usecase';
import { StoredDeliveryReader } from './stored-delivery.reader';

/** A Kafka message saying a delivery was accepted: what it claims, untrusted until the store agrees. */
export interface DeliveryNotification {
  readonly eventId: string;
  readonly streamId: string;
  readonly traceparent: string;
  readonly claimed: DeliveryAccepted['data'];
}

export type NotifiedDispatchOutcome = DispatchOutcome | { readonly kind: 'unverified'; readonly error: string };

/**
 * The Kafka shape's dispatch: the message is a notification, the store is the truth. The
 * DeliveryAccepted is read from the store (batched with the other messages in flight); a run is
 * created only from it — its data and its position, so a forged message can neither make a run
 * nor make the routine be judged as it was at another point. A message whose event the store does
 * not hold, or holds otherwise, creates nothing: it is parked with the reason on a stream of its
 * own (never the real event's), under the real delivery's routine only when that delivery exists.
 */
export class DispatchNotifiedDeliveryUseCase {
  private readonly reader: StoredDeliveryReader;

  constructor(
    store: EventStore,
    private readonly dispatch: DispatchDelivery,
    private readonly park: ParkDispatch,
  ) {
    this.reader = new StoredDeliveryReader(store);
  }

  async execute(notification: DeliveryNotification): Promise<NotifiedDispatchOutcome> {
    const recorded = await this.reader.read(notification.claimed.deliveryId);
    const verdict = checkDeliveryNotice(
      { eventId: notification.eventId, streamId: notification.streamId, data: notification.claimed },
      recorded,
    );
    if (verdict.kind === 'verified') {
      const { position, id } = verdict.stored;
      return this.dispatch.execute({
        delivery: upcastEvent(verdict.stored).data as DeliveryAccepted['data'],
        position,
        eventId: id,
        traceparent: notification.traceparent,
      });
    }
    await this.parkUnverified(
      notification,
      verdict.reason,
      verdict.kind === 'differs' ? (verdict.stored.data as DeliveryAccepted['data']) : undefined,
    );
    return { kind: 'unverified', error: verdict.reason };
  }

  /**
   * On `parked-<id derived from the message>`: the same message parks once however often it is
   * redelivered, and a forged message that reuses a real event id never takes that event's own
   * park stream. The delivery and routine named are the stored ones, never the message's.
   */
  private async parkUnverified(
    notification: DeliveryNotification,
    error: string,
    stored: DeliveryAccepted['data'] | undefined,
  ): Promise<void> {
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([notification.eventId, notification.streamId, notification.claimed]))
      .digest('hex');
    const parkId = derivedEventId('UnverifiedNotification', fingerprint);
    const park: DispatchToPark = {
      sourceEventId: parkId,
      sourceStream: Streams.delivery(stored?.deliveryId ?? 'unknown'),
      sourceType: 'DeliveryAccepted',
      ...(stored ? { deliveryId: stored.deliveryId, routineId: stored.routineId } : {}),
      error,
    };
    await this.park.execute(park, notification.traceparent);
  }
}
