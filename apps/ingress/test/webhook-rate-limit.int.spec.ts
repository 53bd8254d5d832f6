/**
 * Spec rule 4, DESIGN "HTTP contract": per-webhook limits; 429 carries Retry-After and the IETF
 * RateLimit / RateLimit-Policy fields; accepted requests carry RateLimit fields too.
 */
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

const PER_MINUTE = 3;

/** The `r` (remaining) parameter of a RateLimit field, e.g. `"per-webhook";r=2;t=60`. */
function remainingOf(field: string | null): number {
  const match = /(?:^|;)\s*r=(\d+)/.exec(field ?? '');
  if (!match) throw new Error(`no r= parameter in RateLimit: ${String(field)}`);
  return Number(match[1]);
}

describe('public endpoint: rate limit (429)', () => {
  const t = useIngressTestApp({ WEBHOOK_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), WEBHOOK_MAX_PAYLOAD_BYTES: '1024' });
  let hook: WebhookFixture;
  let second: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
    second = await t.setupWebhook();
  });

  it('accepts the first requests with RateLimit fields whose remaining count decreases, then answers 429', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < PER_MINUTE; i++) {
      const result = await t.deliver(hook, { body: JSON.stringify({ data: { i } }) });
      expect(result.status).toBe(202);
      expect(result.headers.get('ratelimit-policy')).toMatch(/q=3\b/);
      expect(result.headers.get('ratelimit-policy')).toMatch(/w=\d+/);
      remaining.push(remainingOf(result.headers.get('ratelimit')));
    }
    expect(remaining).toEqual([2, 1, 0]);

    const limited = await t.deliver(hook, { body: JSON.stringify({ data: { i: 99 } }) });
    const problem = expectProblem(limited, 429, 'rate_limited');
    expect(problem.status).toBe(429);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit')).not.toBeNull();
    expect(remainingOf(limited.headers.get('ratelimit'))).toBe(0);
    expect(limited.headers.get('ratelimit-policy')).toMatch(/q=3\b/);

    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(PER_MINUTE);
  });

  it('keeps answering 429 while the window lasts, whatever the content type', async () => {
    const again = await t.deliver(hook, { contentType: 'text/plain', body: 'still too many' });
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });

  it('check order once limited: 404, 415 and 413 still come first; 429 comes before the 400 rules', async () => {
    expect((await t.deliver(hook, { authorization: 'Bearer whsec_wrong' })).status).toBe(404);
    expectProblem(await t.deliver(hook, { contentType: 'application/xml' }), 415, 'unsupported_media_type');
    expectProblem(await t.deliver(hook, { body: JSON.stringify({ data: 'x'.repeat(2000) }) }), 413, 'payload_too_large');
    expectProblem(await t.deliver(hook, { body: '{"data":' }), 429, 'rate_limited');
    expectProblem(await t.deliver(hook, { body: '{"account_email":"nobody@example.com"}' }), 429, 'rate_limited');
    expectProblem(await t.deliver(hook, { headers: { 'x-service-idempotency-key': 'not valid' } }), 429, 'rate_limited');
  });

  it('limits per webhook: another webhook is still accepted', async () => {
    const result = await t.deliver(second);
    expect(result.status).toBe(202);
    expect(remainingOf(result.headers.get('ratelimit'))).toBe(PER_MINUTE - 1);
  });

  it('does not let failed authentication consume the webhook limit of another caller', async () => {
    for (let i = 0; i < 5; i++) {
      const wrong = await t.deliver({ webhookId: second.webhookId, secret: 'whsec_wrong' });
      expect(wrong.status).toBe(404);
    }
    const result = await t.deliver(second);
    expect(result.status).toBe(202);
    expect(remainingOf(result.headers.get('ratelimit'))).toBe(PER_MINUTE - 2);
  });
});
