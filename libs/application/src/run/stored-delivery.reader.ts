import { Streams, type DeliveryAccepted } from '@wts/contracts';
import type { EventStore, RecordedEvent } from '@wts/event-store';

/**
 * Reads deliveries' DeliveryAccepted from the store for the messages being handled at once: the
 * lookups asked for in one turn of the event loop go out together (each delivery stream's first
 * event, read concurrently, a delivery asked for twice read once), so a batch of messages costs
 * one round of reads, not one round trip after another.
 */
export class StoredDeliveryReader {
  private pending = new Map<string, Array<{ resolve: (event: RecordedEvent | undefined) => void; reject: (error: unknown) => void }>>();
  private scheduled = false;

  constructor(private readonly store: EventStore) {}

  /** The first event of `delivery-<deliveryId>` (its DeliveryAccepted), or undefined when there is none. */
  read(deliveryId: string): Promise<RecordedEvent | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(deliveryId);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(deliveryId, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    await Promise.all(
      [...batch].map(async ([deliveryId, waiting]) => {
        try {
          const [first] = await this.store.readStream(Streams.delivery(deliveryId), { maxCount: 1 });
          for (const caller of waiting) caller.resolve(first);
        } catch (error) {
          for (const caller of waiting) caller.reject(error);
        }
      }),
    );
  }
}

export type StoredDeliveryEvent = RecordedEvent & { readonly data: DeliveryAccepted['data'] };
