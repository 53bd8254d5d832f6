/**
 * DESIGN "X-Service-Idempotency-Key": the retention window is configurable
 * (IDEMPOTENCY_RETENTION_SECONDS); after it the same key starts a new delivery — never before.
 * No fixed sleep: the key is tried until the window has ended, and the time that took is checked
 * from below only (a loaded machine makes it longer, never shorter).
 */
import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';

const KEY = 'X-Service-Idempotency-Key';
const RETENTION_SECONDS = 3;

describe('public endpoint: idempotency retention', () => {
  // A retention shorter than the signature tolerance is refused at start: the tolerance comes down with it.
  const t = useIngressTestApp({
    IDEMPOTENCY_RETENTION_SECONDS: String(RETENTION_SECONDS),
    WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: String(RETENTION_SECONDS),
  });
  let hook: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
  });

  /** Sends until `done` says the answer is the one after the window; returns it and when it was sent. */
  async function sendUntil(body: string, done: (result: HttpResult) => boolean): Promise<{ result: HttpResult; sentAt: number }> {
    return eventually(
      async () => {
        const sentAt = Date.now();
        const result = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
        if (!done(result)) throw new Error(`answered ${result.status}, as within the window`);
        return { result, sentAt };
      },
      30_000,
      'the retention window to end',
      200,
    );
  }

  it('within the window the key replays; after it the same key creates a new delivery (and replays that one), never earlier', async () => {
    const body = '{"data":"retained"}';
    const sentFirst = Date.now();
    const first = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(first.status).toBe(202);
    const replay = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.json as Json).delivery_id).toBe((first.json as Json).delivery_id);

    const { result: later, sentAt: sentLater } = await sendUntil(body, (result) => result.headers.get('idempotent-replayed') === null);
    expect(Date.now() - sentFirst).toBeGreaterThanOrEqual(RETENTION_SECONDS * 1000);
    expect(later.status).toBe(202);
    expect((later.json as Json).delivery_id).not.toBe((first.json as Json).delivery_id);
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(2);

    const again = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((again.json as Json).delivery_id).toBe((later.json as Json).delivery_id);

    // Another body under the key: 422 within the window, a new delivery after it.
    const otherBody = '{"data":"a different body after expiry"}';
    const { result: other } = await sendUntil(otherBody, (result) => {
      if (result.status !== 422) return true;
      expect((result.json as Json).code).toBe('idempotency_key_reused');
      return false;
    });
    expect(other.status).toBe(202);
    // The new delivery was received after `sentLater`: its window cannot have ended earlier.
    expect(Date.now() - sentLater).toBeGreaterThanOrEqual(RETENTION_SECONDS * 1000);
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(3);
  }, 60_000);
});
