import { isDeepStrictEqual } from 'node:util';
import { comparableDeliveryData } from '@wts/contracts';
import { isWellFormedId } from '../ids/id.factory';

/** What a Kafka message claims: a DeliveryAccepted, by its event id, stream and data. */
export interface DeliveryNotice {
  readonly eventId: string;
  readonly streamId: string;
  readonly data: { readonly deliveryId: string };
}

/** The first event the store holds at that delivery's stream, if any. */
export interface StoredDelivery {
  readonly id: string;
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
}

export type NoticeVerdict<S extends StoredDelivery> =
  | { readonly kind: 'verified'; readonly stored: S }
  | { readonly kind: 'not_in_store'; readonly reason: string }
  | { readonly kind: 'differs'; readonly stored: S; readonly reason: string };

/**
 * Kafka is a notification, the store is the truth: a message stands for a delivery only when the
 * store holds a DeliveryAccepted at the stream it names, with the same event id and the same data
 * (every field). The reason names the delivery only by a well-formed id and never quotes the
 * message's values — they are untrusted, and would end up in an operator's listing.
 */
export function checkDeliveryNotice<S extends StoredDelivery>(notice: DeliveryNotice, stored: S | undefined): NoticeVerdict<S> {
  const deliveryId = notice.data.deliveryId;
  const named =
    typeof deliveryId === 'string' && isWellFormedId('delivery', deliveryId) ? `delivery ${deliveryId}` : 'a malformed delivery id';
  if (!stored || stored.type !== 'DeliveryAccepted') {
    return { kind: 'not_in_store', reason: `unverified_notification: the event store holds no DeliveryAccepted for ${named}` };
  }
  const differing = [
    ...(stored.id === notice.eventId ? [] : ['event id']),
    ...(stored.streamId === notice.streamId ? [] : ['stream']),
    ...(isDeepStrictEqual(comparableDeliveryData(stored.data), comparableDeliveryData(notice.data)) ? [] : ['data']),
  ];
  if (differing.length > 0) {
    return {
      kind: 'differs',
      stored,
      reason: `unverified_notification: the message differs from the stored DeliveryAccepted of ${named} (${differing.join(', ')})`,
    };
  }
  return { kind: 'verified', stored };
}
