import { toAppend } from '@wts/application';
import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { runIdForDelivery } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Appends, as if accepted, a delivery for an account outside the routine's scope (what a lagging
 * replica could have let through): the dispatcher can never turn it into a run and parks it.
 * Returns the delivery id.
 */
export async function appendDeliveryOutsideScope(store: EventStore, target: { webhookId: string; routineId: string }): Promise<string> {
  const deliveryId = `dlv_${randomBytes(16).toString('base64url')}`;
  const data: DeliveryAccepted['data'] = {
    deliveryId,
    webhookId: target.webhookId,
    routineId: target.routineId,
    runId: runIdForDelivery(deliveryId),
    triggerAccount: { accountId: 'acc_OutsideTheScope0000000', email: 'outsider@example.com' },
    payload: { format: 'json', json: '{"x":1}' },
    contentType: 'application/json',
    idempotencyKey: null,
    requestDigest: '0'.repeat(64),
    receivedAt: new Date().toISOString(),
  };
  const events = toAppend(
    [{ type: 'DeliveryAccepted', data }],
    { correlationId: deliveryId, causationId: deliveryId, traceparent: '' },
    () => randomUUID(),
  );
  const result = await store.append(Streams.delivery(deliveryId), events, 'no_stream');
  if (result.kind !== 'appended') throw new Error('delivery not appended');
  return deliveryId;
}
