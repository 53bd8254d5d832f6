/**
 * DESIGN "HTTP contract": every error is application/problem+json (RFC 9457) with `type`, `title`,
 * `status` (equal to the HTTP status) and a stable snake_case `code` — public endpoint, admin API
 * and routing alike.
 */
import { useIngressTestApp, TEST_ADMIN_TOKEN } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { HttpResult } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

describe('errors are problem+json everywhere', () => {
  const t = useIngressTestApp({ WEBHOOK_MAX_PAYLOAD_BYTES: '64', WEBHOOK_RATE_LIMIT_PER_MINUTE: '40' });
  let hook: WebhookFixture;
  let blocked: WebhookFixture;
  let limited: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
    blocked = await t.setupWebhook({
      account: hook.account,
      routine: { mode: 'autonomous', tools: [{ name: 'post', sends_externally: true }] },
    });
    limited = await t.setupWebhook({ account: hook.account });
    await t.deliver(hook, { body: '{"data":1}', headers: { 'x-service-idempotency-key': 'k1' } });
  });

  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const cases: [string, () => Promise<HttpResult>, number, string | undefined][] = [
    ['public 404', () => t.deliver({ webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA', secret: 'whsec_x' }), 404, undefined],
    ['public 415', () => t.deliver(hook, { contentType: 'application/xml' }), 415, 'unsupported_media_type'],
    ['public 413', () => t.deliver(hook, { body: JSON.stringify({ data: 'x'.repeat(100) }) }), 413, 'payload_too_large'],
    ['public 400 invalid_json', () => t.deliver(hook, { body: '{' }), 400, 'invalid_json'],
    ['public 400 account', () => t.deliver(hook, { body: '{"account_email":"a@example.com"}' }), 400, 'account_override_not_allowed'],
    ['public 400 key', () => t.deliver(hook, { headers: { 'x-service-idempotency-key': 'a b' } }), 400, 'invalid_idempotency_key'],
    [
      'public 422',
      () => t.deliver(hook, { body: '{"data":2}', headers: { 'x-service-idempotency-key': 'k1' } }),
      422,
      'idempotency_key_reused',
    ],
    ['public 403', () => t.deliver(blocked), 403, 'webhook_blocked'],
    ['admin 401', () => t.http('GET', '/admin/accounts'), 401, 'unauthorized'],
    ['admin 400', () => t.http('POST', '/admin/accounts', { headers: admin, body: '{"email":"nope"}' }), 400, 'validation_failed'],
    ['admin 400 unparseable', () => t.http('POST', '/admin/accounts', { headers: admin, body: '{"email"' }), 400, 'validation_failed'],
    ['admin 404 routine', () => t.http('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA', { headers: admin }), 404, undefined],
    ['admin 404 run', () => t.http('GET', '/admin/runs/run_AAAAAAAAAAAAAAAAAAAAAA', { headers: admin }), 404, undefined],
    [
      'admin 409',
      () => t.http('POST', '/admin/accounts', { headers: admin, body: JSON.stringify({ email: hook.account.email }) }),
      409,
      undefined,
    ],
    [
      'admin 415',
      () => t.http('POST', '/admin/accounts', { headers: { ...admin, 'content-type': 'text/plain' }, body: '{}' }),
      415,
      undefined,
    ],
    ['unknown route', () => t.http('GET', '/no/such/route'), 404, undefined],
    ['GET on a webhook URL', () => t.http('GET', t.webhookPath(hook.webhookId)), 404, undefined],
    [
      'POST to the collection',
      () => t.http('POST', '/workflow-webhooks', { headers: { 'content-type': 'application/json' }, body: '{}' }),
      404,
      undefined,
    ],
  ];

  it.each(cases)('%s → problem+json with type, title, status, code', async (_name, send, status, code) => {
    expectProblem(await send(), status, code);
  });

  it('public 429 → problem+json rate_limited', async () => {
    let last: HttpResult | undefined;
    for (let i = 0; i < 41; i++) last = await t.deliver(limited, { body: JSON.stringify({ data: i }) });
    expectProblem(last as HttpResult, 429, 'rate_limited');
  });

  it('the type of a problem is a URI reference and the title a short summary', async () => {
    const problem = expectProblem(await t.deliver(hook, { contentType: 'application/xml' }), 415);
    expect(problem.type).toMatch(/^([a-z][a-z0-9+.-]*:|\/)/);
    expect(problem.title.length).toBeGreaterThan(0);
  });
});
