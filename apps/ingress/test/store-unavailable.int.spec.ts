/**
 * DESIGN guarantee 1: 202 only after DeliveryAccepted is durable; store down → 503, never 202.
 * Also: the run id is fixed at 202, and GET /admin/runs/{id} is 404 until the dispatcher made it.
 */
import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

describe('event store unavailable', () => {
  const t = useIngressTestApp();
  let hook: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
  });

  it('202 means durable: the DeliveryAccepted is in the store when the answer arrives', async () => {
    const result = await t.deliver(hook);
    expect(result.status).toBe(202);
    const accepted = result.json as Json;
    const stored = await t.acceptedDeliveries(hook.routineId);
    expect(stored.map((event) => (event.data as { deliveryId: string }).deliveryId)).toContain(accepted.delivery_id);
  });

  it('the run id is known at 202, and the run is 404 until the dispatcher created it', async () => {
    const accepted = (await t.deliver(hook, { body: '{"data":"later"}' })).json as Json;
    expectProblem(await t.admin('GET', `/admin/runs/${accepted.run_id}`), 404);
    await t.startDispatcher();
    const run = (await t.waitForRun(accepted.run_id)).json as Json;
    expect(run).toMatchObject({ run_id: accepted.run_id, delivery_id: accepted.delivery_id, payload: 'later' });
  });

  it('with the store closed under the running app, a valid delivery → 503 store_unavailable, never 202', async () => {
    expect((await t.http('GET', '/readyz')).status).toBe(200);
    await t.store.close();

    const plain = await t.deliver(hook, { body: '{"data":"while down"}' });
    expect(plain.status).not.toBe(202);
    expectProblem(plain, 503, 'store_unavailable');

    const keyed = await t.deliver(hook, { body: '{"data":"while down"}', headers: { 'x-service-idempotency-key': 'down-1' } });
    expect(keyed.status).not.toBe(202);
    expectProblem(keyed, 503, 'store_unavailable');

    const text = await t.deliver(hook, { contentType: 'text/plain', body: 'while down' });
    expectProblem(text, 503, 'store_unavailable');

    // Readiness checks each dependency at most once a second: it flips within that.
    await eventually(async () => (await t.http('GET', '/readyz')).status === 503, 3_000, 'readiness to answer 503');
  });

  it('while the store is down, no decision is made on a view that may be stale: known, unknown, wrong secret — one identical 503', async () => {
    const answers = [
      await t.deliver(hook, { authorization: 'Bearer whsec_wrong' }),
      await t.deliver({ webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA', secret: hook.secret }),
      await t.deliver(hook),
      await t.deliver(hook, { contentType: 'application/xml' }),
    ];
    for (const answer of answers) expectProblem(answer, 503, 'store_unavailable');
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.headers.get('retry-after'))).size).toBe(1);
  });

  it('admin writes answer 503 too', async () => {
    const result = await t.admin('POST', '/admin/accounts', { email: 'late@example.com' });
    expectProblem(result, 503, 'store_unavailable');
  });
});
