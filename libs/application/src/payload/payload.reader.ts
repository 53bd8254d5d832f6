import { Streams, type DeliveryEvent, type PayloadRecord } from '@wts/contracts';
import type { EventStore, PayloadRemovalReason, StoredPayload } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';

/** A delivery's payload as readers see it: kept (with its text), or removed (expired or erased, and when). */
export type PayloadLookup =
  | { readonly state: 'kept'; readonly payload: PayloadRecord }
  | { readonly state: PayloadRemovalReason; readonly removedAt: Date; readonly erasureId: string | null };

/**
 * Reads deliveries' payloads from the store's payload store, a batch at a time. A delivery written
 * before payloads were kept apart has none there: its payload is read from its event
 * (`legacyPayload`). A delivery with neither is absent from the answer.
 */
export class PayloadReader {
  constructor(private readonly store: EventStore) {}

  async lookup(deliveryIds: readonly string[]): Promise<ReadonlyMap<string, PayloadLookup>> {
    const stored = deliveryIds.length === 0 ? new Map<string, StoredPayload>() : await this.store.payloads().get(deliveryIds);
    const found = new Map<string, PayloadLookup>();
    const legacy: string[] = [];
    for (const deliveryId of deliveryIds) {
      const payload = stored.get(deliveryId);
      if (payload === undefined) legacy.push(deliveryId);
      else found.set(deliveryId, toLookup(payload));
    }
    for (const deliveryId of legacy) {
      const [recorded] = await this.store.readStream(Streams.delivery(deliveryId), { maxCount: 1 });
      const inline = recorded ? asEvent<DeliveryEvent>(recorded).data.legacyPayload : undefined;
      if (inline) found.set(deliveryId, { state: 'kept', payload: inline });
    }
    return found;
  }

  async lookupOne(deliveryId: string): Promise<PayloadLookup | undefined> {
    return (await this.lookup([deliveryId])).get(deliveryId);
  }
}

function toLookup(stored: StoredPayload): PayloadLookup {
  if (stored.state === 'removed') return { state: stored.reason, removedAt: new Date(stored.removedAt), erasureId: stored.erasureId };
  return {
    state: 'kept',
    payload: stored.format === 'json' ? { format: 'json', json: stored.text } : { format: 'text', text: stored.text },
  };
}
