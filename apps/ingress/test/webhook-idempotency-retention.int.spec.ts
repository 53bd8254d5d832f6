/**
 * DESIGN "X-Service-Idempotency-Key": the retention window is configurable
 * (IDEMPOTENCY_RETENTION_SECONDS); after it the same key starts a new delivery.
 */
import { IngressTestApp, sleep, type Json, type WebhookFixture } from '../../../test/support/ingress-test-app';

const KEY = 'X-Service-Idempotency-Key';

describe('public endpoint: idempotency retention', () => {
  let t: IngressTestApp;
  let hook: WebhookFixture;

  beforeAll(async () => {
    t = await IngressTestApp.start({ IDEMPOTENCY_RETENTION_SECONDS: '1' });
    hook = await t.setupWebhook();
  });

  afterAll(async () => {
    await t.close();
  });

  it('after the retention window the same key creates a new delivery (and replays that one)', async () => {
    const body = '{"data":"retained"}';
    const first = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(first.status).toBe(202);
    const replay = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    await sleep(1100);
    const later = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(later.status).toBe(202);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((later.json as Json).delivery_id).not.toBe((first.json as Json).delivery_id);
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(2);

    const again = await t.deliver(hook, { body, headers: { [KEY]: 'retained-key' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((again.json as Json).delivery_id).toBe((later.json as Json).delivery_id);

    await sleep(1100);
    const other = await t.deliver(hook, { body: '{"data":"a different body after expiry"}', headers: { [KEY]: 'retained-key' } });
    expect(other.status).toBe(202);
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(3);
  });
});
