import { Streams, type DeliveryAccepted } from '@wts/contracts';
import type { EventStore, RecordedEvent } from '@wts/event-store';
import { BatchedLookup } from '../shared/batched-lookup';

/**
 * Reads deliveries' DeliveryAccepted from the store for the messages being handled at once: the
 * lookups asked for in one turn of the event loop go out together, as one read of the delivery
 * streams' first events (on the embedded store one statement in one snapshot, not a read
 * transaction each), a delivery asked for twice read once.
 */
export class StoredDeliveryReader {
  private readonly lookup: BatchedLookup<RecordedEvent>;

  constructor(store: EventStore) {
    this.lookup = new BatchedLookup(async (deliveryIds) => {
      const first = await store.readFirstEvents(deliveryIds.map((deliveryId) => Streams.delivery(deliveryId)));
      const found = new Map<string, RecordedEvent>();
      for (const deliveryId of deliveryIds) {
        const event = first.get(Streams.delivery(deliveryId));
        if (event) found.set(deliveryId, event);
      }
      return found;
    });
  }

  /** The first event of `delivery-<deliveryId>` (its DeliveryAccepted), or undefined when there is none. */
  read(deliveryId: string): Promise<RecordedEvent | undefined> {
    return this.lookup.load(deliveryId);
  }
}

export type StoredDeliveryEvent = RecordedEvent & { readonly data: DeliveryAccepted['data'] };
