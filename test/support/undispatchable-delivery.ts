import { toAppend } from '@wts/application';
import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { runIdForDelivery } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { randomBytes, randomUUID } from 'node:crypto';

/** What tells one directly appended delivery from another; the rest is a fixed small JSON delivery. */
export type AcceptedDeliveryIds = Pick<DeliveryAccepted['data'], 'deliveryId' | 'webhookId' | 'routineId' | 'runId' | 'triggerAccount'>;

/**
 * Appends a DeliveryAccepted straight to the store (as a lagging replica, a corrupted or a foreign
 * history could hold it), bypassing every check of the ingress.
 */
export async function appendAcceptedDelivery(store: EventStore, ids: AcceptedDeliveryIds): Promise<void> {
  const { deliveryId } = ids;
  const data: DeliveryAccepted['data'] = {
    ...ids,
    payloadFormat: 'json',
    payloadBytes: 7,
    payloadExpiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    contentType: 'application/json',
    idempotencyKey: null,
    requestDigest: '0'.repeat(64),
    receivedAt: new Date().toISOString(),
  };
  const payload = { key: deliveryId, webhookId: ids.webhookId, format: 'json' as const, text: '{"x":1}' };
  const events = toAppend(
    [{ type: 'DeliveryAccepted', data }],
    { correlationId: deliveryId, causationId: deliveryId, traceparent: '' },
    () => randomUUID(),
  );
  const times = { receivedAt: Date.parse(data.receivedAt), expiresAt: Date.parse(data.payloadExpiresAt ?? data.receivedAt) };
  const result = await store.append(Streams.delivery(deliveryId), events, 'no_stream', { payload: { ...payload, ...times } });
  if (result.kind !== 'appended') throw new Error(`delivery ${deliveryId} not appended`);
}

/**
 * Appends, as if accepted, a delivery for an account outside the routine's scope (what a lagging
 * replica could have let through): the dispatcher can never turn it into a run and parks it.
 * Returns the delivery id.
 */
export async function appendDeliveryOutsideScope(store: EventStore, target: { webhookId: string; routineId: string }): Promise<string> {
  const deliveryId = `dlv_${randomBytes(16).toString('base64url')}`;
  await appendAcceptedDelivery(store, {
    deliveryId,
    webhookId: target.webhookId,
    routineId: target.routineId,
    runId: runIdForDelivery(deliveryId),
    triggerAccount: { accountId: 'acc_OutsideTheScope0000000', email: 'outsider@example.com' },
  });
  return deliveryId;
}
