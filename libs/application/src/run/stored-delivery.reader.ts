import { Streams, type DeliveryAccepted } from '@wts/contracts';
import type { EventStore, RecordedEvent } from '@wts/event-store';
import { BatchedLookup } from '../shared/batched-lookup';

/**
 * Reads deliveries' DeliveryAccepted from the store for the messages being handled at once: the
 * lookups asked for in one turn of the event loop go out together (each delivery stream's first
 * event, read concurrently, a delivery asked for twice read once), so a batch of messages costs
 * one round of reads, not one round trip after another.
 */
export class StoredDeliveryReader {
  private readonly lookup: BatchedLookup<RecordedEvent>;

  constructor(store: EventStore) {
    this.lookup = new BatchedLookup(async (deliveryIds) => {
      const found = new Map<string, RecordedEvent>();
      await Promise.all(
        deliveryIds.map(async (deliveryId) => {
          const [first] = await store.readStream(Streams.delivery(deliveryId), { maxCount: 1 });
          if (first) found.set(deliveryId, first);
        }),
      );
      return found;
    });
  }

  /** The first event of `delivery-<deliveryId>` (its DeliveryAccepted), or undefined when there is none. */
  read(deliveryId: string): Promise<RecordedEvent | undefined> {
    return this.lookup.load(deliveryId);
  }
}

export type StoredDeliveryEvent = RecordedEvent & { readonly data: DeliveryAccepted['data'] };
