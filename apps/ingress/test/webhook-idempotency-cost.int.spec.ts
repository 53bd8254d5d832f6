import { Streams } from '@wts/contracts';
import { deliveryIdForIdempotencyKey, idempotencyIndexId, runIdForDelivery } from '@wts/domain';
import { randomUUID } from 'node:crypto';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { RecordingEventStore } from '../../../test/support/recording-event-store';

const KEY = 'x-service-idempotency-key';
const LONG_AGO = '2020-01-01T00:00:00.000Z';

/**
 * An idempotency key reused over many retention windows costs the same as a fresh one: the lookup
 * starts at the key's newest generation (its index stream), not at generation 0 (one read per past
 * window, and a 422 after 10,000 windows).
 */
describe('public endpoint: idempotency cost does not grow with reuse', () => {
  let recorder: RecordingEventStore;
  const t = useIngressTestApp(
    { IDEMPOTENCY_RETENTION_SECONDS: '3600', WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' },
    (store) => (recorder = new RecordingEventStore(store)),
  );
  let hook: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
  });

  /** The history a key leaves after `windows` retention windows of reuse: a delivery per window (all expired), the index at the newest. */
  const seedReusedKey = async (key: string, windows: number): Promise<void> => {
    for (let generation = 0; generation < windows; generation++) {
      const deliveryId = deliveryIdForIdempotencyKey(hook.webhookId, key, generation);
      const data = {
        deliveryId,
        webhookId: hook.webhookId,
        routineId: hook.routineId,
        runId: runIdForDelivery(deliveryId),
        triggerAccount: { accountId: hook.account.id, email: hook.account.email },
        payload: { format: 'json', json: '"old"' },
        contentType: 'application/json',
        idempotencyKey: key,
        requestDigest: 'f'.repeat(64),
        receivedAt: LONG_AGO,
      };
      const metadata = { correlationId: deliveryId, causationId: deliveryId, schemaVersion: 1 };
      await t.store.append(Streams.delivery(deliveryId), [{ id: randomUUID(), type: 'DeliveryAccepted', data, metadata }], 'no_stream');
      if (generation > 0) {
        const index = Streams.idempotencyKey(idempotencyIndexId(hook.webhookId, key));
        const advanced = {
          type: 'IdempotencyGenerationAdvanced',
          data: { webhookId: hook.webhookId, generation },
          metadata: { schemaVersion: 1 },
        };
        await t.store.append(index, [{ id: randomUUID(), ...advanced }], generation === 1 ? 'no_stream' : BigInt(generation - 2));
      }
    }
  };

  /** The store calls one delivery with `key` makes (and its answer). */
  const costOf = async (key: string): Promise<{ calls: number; deliveryReads: number; answer: Json }> => {
    recorder.reset();
    const answer = await t.deliver(hook, { body: '{"data":"new"}', headers: { [KEY]: key } });
    expect(answer.status).toBe(202);
    const calls = recorder.calls.filter(
      (call) => call.call !== 'streamHeads' || call.streamIds.some((id) => id.startsWith('idempotency_key-')),
    );
    const deliveryReads = calls.filter((call) => call.call === 'readStream' && call.streamId.startsWith('delivery-')).length;
    return { calls: calls.length, deliveryReads, answer: answer.json };
  };

  it('a key reused over 3 and over 300 windows costs the same store calls, and starts its newest generation', async () => {
    await seedReusedKey('reused-3', 3);
    await seedReusedKey('reused-300', 300);
    const few = await costOf('reused-3');
    const many = await costOf('reused-300');
    expect(many.calls).toBe(few.calls);
    expect(many.deliveryReads).toBeLessThanOrEqual(2);
    expect(many.answer.delivery_id).toBe(deliveryIdForIdempotencyKey(hook.webhookId, 'reused-300', 300));

    // And the repeat of that request is a replay, at the same constant cost.
    const replay = await t.deliver(hook, { body: '{"data":"new"}', headers: { [KEY]: 'reused-300' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.json as Json).delivery_id).toBe(many.answer.delivery_id);
  });

  it('a fresh key costs no more than that', async () => {
    const fresh = await costOf('fresh-key');
    expect(fresh.deliveryReads).toBe(1);
  });
});
