/**
 * DESIGN "Safety block" and the check order: a routine that is autonomous and has a tool that
 * sends externally gets its webhook blocked (403 webhook_blocked, no run); the Config view says why;
 * making the routine safer lifts the block by itself. The block is judged after the 400 rules and
 * before idempotency.
 */
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

const UNSAFE = {
  mode: 'autonomous' as const,
  tools: [
    { name: 'send_email', sends_externally: true },
    { name: 'search', sends_externally: false },
  ],
};

describe('public endpoint: safety block', () => {
  const t = useIngressTestApp({ WEBHOOK_MAX_PAYLOAD_BYTES: '1024' });

  const view = async (routineId: string): Promise<Json> => t.adminOk('GET', `/admin/routines/${routineId}/webhook`, undefined, 200);
  const patchRoutine = (routineId: string, changes: object): Promise<Json> =>
    t.adminOk('PATCH', `/admin/routines/${routineId}`, changes, 200);

  it('blocks an autonomous routine with an external-sending tool: 403 problem, view says blocked and why, nothing appended', async () => {
    const hook = await t.setupWebhook({ routine: UNSAFE });
    const webhook = await view(hook.routineId);
    expect(webhook.state).toBe('enabled');
    expect(webhook.blocked).toBe(true);
    expect(typeof webhook.blocked_reason).toBe('string');
    expect(webhook.blocked_reason).toContain('send_email');
    expect(webhook).not.toHaveProperty('secret');

    const result = await t.deliver(hook);
    const problem = expectProblem(result, 403, 'webhook_blocked');
    expect(problem.status).toBe(403);
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(0);
  });

  it('shows the block on the view before the webhook is enabled', async () => {
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id], ...UNSAFE });
    const webhook = await view(routine.id);
    expect(webhook.state).toBe('not_configured');
    expect(webhook.blocked).toBe(true);
    expect(webhook.blocked_reason).toEqual(expect.any(String));
  });

  it('lifts the block when the routine is switched to supervised, and blocks again when it goes back', async () => {
    const hook = await t.setupWebhook({ routine: UNSAFE });
    expectProblem(await t.deliver(hook), 403, 'webhook_blocked');

    await patchRoutine(hook.routineId, { mode: 'supervised' });
    const lifted = await view(hook.routineId);
    expect(lifted.blocked).toBe(false);
    expect(lifted.blocked_reason).toBeNull();
    expect((await t.deliver(hook)).status).toBe(202);

    await patchRoutine(hook.routineId, { mode: 'autonomous' });
    expect((await view(hook.routineId)).blocked).toBe(true);
    expectProblem(await t.deliver(hook), 403, 'webhook_blocked');
  });

  it('lifts the block when the external-sending tool is removed', async () => {
    const hook = await t.setupWebhook({ routine: UNSAFE });
    expectProblem(await t.deliver(hook), 403, 'webhook_blocked');
    await patchRoutine(hook.routineId, { tools: [{ name: 'search', sends_externally: false }] });
    expect((await view(hook.routineId)).blocked).toBe(false);
    expect((await t.deliver(hook)).status).toBe(202);
  });

  it('does not block autonomous routines without external sending, nor supervised ones with it', async () => {
    const autonomous = await t.setupWebhook({ routine: { mode: 'autonomous', tools: [{ name: 'search', sends_externally: false }] } });
    expect((await t.deliver(autonomous)).status).toBe(202);
    const supervised = await t.setupWebhook({ routine: { mode: 'supervised', tools: UNSAFE.tools } });
    expect((await t.deliver(supervised)).status).toBe(202);
    expect((await view(supervised.routineId)).blocked).toBe(false);
  });

  it('the block keeps applying across disable and re-enable', async () => {
    const hook = await t.setupWebhook({ routine: UNSAFE });
    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/disable`, undefined, 200);
    const again = await t.enableWebhook(hook.routineId, hook.account.email);
    expect((await view(hook.routineId)).blocked).toBe(true);
    expectProblem(await t.deliver({ webhookId: again.webhook_id, secret: again.secret }), 403, 'webhook_blocked');
  });

  describe('check order around the block', () => {
    let hook: WebhookFixture;

    beforeAll(async () => {
      hook = await t.setupWebhook({ routine: UNSAFE, accountOverrideAllowed: false });
    });

    it('auth, content type and size come first: 404, 415, 413', async () => {
      expect((await t.deliver(hook, { authorization: 'Bearer whsec_wrong' })).status).toBe(404);
      expectProblem(await t.deliver(hook, { contentType: 'application/xml' }), 415, 'unsupported_media_type');
      expectProblem(await t.deliver(hook, { body: JSON.stringify({ data: 'x'.repeat(2000) }) }), 413, 'payload_too_large');
    });

    it.each([
      ['invalid JSON', { body: '{"data":' }, 'invalid_json'],
      ['an account selection while override is off', { body: '{"account_email":"someone@example.com"}' }, 'account_override_not_allowed'],
      ['the account header on JSON', { headers: { 'x-service-account-email': 'someone@example.com' } }, 'account_header_requires_text'],
      ['an invalid idempotency key', { headers: { 'x-service-idempotency-key': 'has space' } }, 'invalid_idempotency_key'],
    ])('the 400 rules come before the block: %s → 400', async (_name, options, code) => {
      expectProblem(await t.deliver(hook, options), 400, code);
    });

    it('the block comes before idempotency: a repeat of a delivery accepted before the block → 403', async () => {
      const safe = await t.setupWebhook();
      const headers = { 'x-service-idempotency-key': 'before-block' };
      const first = await t.deliver(safe, { headers });
      expect(first.status).toBe(202);
      await patchRoutine(safe.routineId, UNSAFE);
      expectProblem(await t.deliver(safe, { headers }), 403, 'webhook_blocked');
      expect(await t.acceptedDeliveries(safe.routineId)).toHaveLength(1);
    });
  });
});
