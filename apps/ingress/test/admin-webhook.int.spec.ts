/**
 * DESIGN "Admin API" (Webhook section of the Config page) and spec §3: enable → URL, secret shown
 * once; rotate → the old secret is dead at once; disable → 404; re-enable keeps the URL and issues a
 * new secret; the view never carries the secret; deliveries and runs are listed newest first.
 */
import { useIngressTestApp, TEST_PUBLIC_BASE_URL } from '../../../test/support/ingress-test-app';
import type { AccountBody } from '../../../test/support/ingress-admin.client';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;
const WEBHOOK_ID = /^whk_[A-Za-z0-9_-]{22,}$/;

describe('admin API: webhook lifecycle, deliveries and runs', () => {
  const t = useIngressTestApp();
  let account: AccountBody;

  beforeAll(async () => {
    account = await t.createAccount({ email: 'owner@example.com', aliases: ['Alias@Example.com'] });
    await t.startDispatcher();
  });

  const webhookPath = (routineId: string, action = ''): string => `/admin/routines/${routineId}/webhook${action}`;
  const viewOf = async (routineId: string): Promise<{ json: Json; text: string }> => {
    const result = await t.admin('GET', webhookPath(routineId));
    expect(result.status).toBe(200);
    return { json: result.json, text: result.text };
  };
  /** The answer to enabling the routine's webhook with the suite's account as default (the caller checks it). */
  const enable = (routineId: string, accountOverrideAllowed = false): Promise<HttpResult> =>
    t.admin('POST', webhookPath(routineId, '/enable'), {
      default_account: account.email,
      account_override_allowed: accountOverrideAllowed,
    });
  const noSecretIn = (text: string): void => {
    expect(text).not.toMatch(/secret"/);
    expect(text).not.toContain('whsec_');
  };

  it('shows a not-configured webhook before enable, without any secret field', async () => {
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const { json, text } = await viewOf(routine.id);
    expect(json).toMatchObject({
      state: 'not_configured',
      webhook_id: null,
      url: null,
      default_account: null,
      account_override_allowed: false,
      blocked: false,
      blocked_reason: null,
    });
    noSecretIn(text);
  });

  it('enable → 200 with webhook_id whk_…, url, secret whsec_ + 43 base64url chars, state, default account, override flag', async () => {
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const result = await enable(routine.id, true);
    expect(result.status).toBe(200);
    const enabled = result.json as Json;
    expect(enabled.webhook_id).toMatch(WEBHOOK_ID);
    expect(enabled.secret).toMatch(SECRET);
    expect(enabled.url).toBe(`${TEST_PUBLIC_BASE_URL}/workflow-webhooks/${enabled.webhook_id}`);
    expect(enabled).toMatchObject({ state: 'enabled', default_account: account.email, account_override_allowed: true });

    const { json, text } = await viewOf(routine.id);
    expect(json).toMatchObject({
      state: 'enabled',
      webhook_id: enabled.webhook_id,
      url: enabled.url,
      default_account: account.email,
      account_override_allowed: true,
      blocked: false,
    });
    noSecretIn(text);
    expect(text).not.toContain(enabled.secret.slice('whsec_'.length));

    expect((await t.deliver({ webhookId: enabled.webhook_id, secret: enabled.secret })).status).toBe(202);
  });

  it('issues distinct ids and secrets for distinct routines', async () => {
    const a = await t.setupWebhook({ account });
    const b = await t.setupWebhook({ account });
    expect(a.webhookId).not.toBe(b.webhookId);
    expect(a.secret).not.toBe(b.secret);
  });

  describe('enable refuses a default account that is not usable', () => {
    let outside: AccountBody;
    let inactive: AccountBody;
    let routineId: string;

    beforeAll(async () => {
      outside = await t.createAccount();
      inactive = await t.createAccount();
      const routine = await t.createRoutine({ account_scope: [account.id, inactive.id] });
      routineId = routine.id;
      await t.patchAccount(inactive.id, { active: false });
    });

    it.each([
      ['outside the routine scope', () => outside.email],
      ['inactive', () => inactive.email],
      ['unknown', () => 'nobody@example.com'],
    ])('a default account %s → 400 problem, webhook stays not configured', async (_name, email) => {
      const result = await t.admin('POST', webhookPath(routineId, '/enable'), {
        default_account: email(),
        account_override_allowed: false,
      });
      const problem = expectProblem(result, 400);
      expect(problem.code).toBe('default_account_invalid');
      expect((await viewOf(routineId)).json.state).toBe('not_configured');
    });

    it.each([
      [
        'no default account',
        { account_override_allowed: false },
        "default_account is required: the email of an active account inside the routine's scope",
      ],
      [
        'an empty default account',
        { default_account: '', account_override_allowed: false },
        "default_account is required: the email of an active account inside the routine's scope",
      ],
      ['no override flag', { default_account: 'owner@example.com' }, 'account_override_allowed is required: true or false'],
      [
        'a default account that is not an address',
        { default_account: 'owner', account_override_allowed: false },
        'default_account must be the email of an account',
      ],
      [
        'a default account that is a number',
        { default_account: 42, account_override_allowed: false },
        'default_account must be a string: the email of an account',
      ],
      [
        'a default account of 255 characters',
        { default_account: `${'a'.repeat(243)}@example.com`, account_override_allowed: false },
        'default_account must be at most 254 characters',
      ],
      [
        'an override flag that is not a boolean',
        { default_account: 'owner@example.com', account_override_allowed: 'yes' },
        'account_override_allowed is required: true or false',
      ],
    ])('a body with %s → 400 validation_failed, with one message that says what is wrong', async (_name, body, message) => {
      const problem = expectProblem(await t.admin('POST', webhookPath(routineId, '/enable'), body), 400, 'validation_failed');
      expect(problem.errors).toEqual([message]);
    });

    it('a default account named by its alias, in any case, is accepted', async () => {
      const routine = await t.createRoutine({ account_scope: [account.id] });
      const enabled = await t.enableWebhook(routine.id, 'alias@example.COM');
      expect(enabled.state).toBe('enabled');
    });

    it('enable of an unknown routine → 404 problem', async () => {
      const result = await t.admin('POST', webhookPath('rtn_AAAAAAAAAAAAAAAAAAAAAA', '/enable'), {
        default_account: account.email,
        account_override_allowed: false,
      });
      expectProblem(result, 404);
    });
  });

  it('rotate → a new secret; the old one is dead at once, the new one works; the view has no secret', async () => {
    const hook = await t.setupWebhook({ account });
    const result = await t.admin('POST', webhookPath(hook.routineId, '/rotate'));
    expect(result.status).toBe(200);
    const rotated = result.json as Json;
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated).toMatchObject({ webhook_id: hook.webhookId, url: hook.webhook.url, state: 'enabled' });

    expect((await t.deliver(hook)).status).toBe(404);
    expect((await t.deliver({ webhookId: hook.webhookId, secret: rotated.secret })).status).toBe(202);
    noSecretIn((await viewOf(hook.routineId)).text);
  });

  it('the answers carrying the secret (enable, rotate) say Cache-Control: no-store', async () => {
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const enabled = await enable(routine.id);
    expect(enabled.status).toBe(200);
    expect(enabled.headers.get('cache-control')).toBe('no-store');
    const rotated = await t.admin('POST', webhookPath(routine.id, '/rotate'));
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
  });

  it('rotate before enable is refused with a problem', async () => {
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const result = await t.admin('POST', webhookPath(routine.id, '/rotate'));
    expect(result.status).toBeGreaterThanOrEqual(400);
    expectProblem(result, result.status);
  });

  it('disable → 200 state disabled; deliveries answer 404; re-enable keeps the URL, issues a new secret, the old stays dead', async () => {
    const hook = await t.setupWebhook({ account });
    expect((await t.deliver(hook)).status).toBe(202);

    const disabled = await t.admin('POST', webhookPath(hook.routineId, '/disable'));
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({ state: 'disabled', webhook_id: hook.webhookId, url: hook.webhook.url });
    noSecretIn(disabled.text);
    expect((await viewOf(hook.routineId)).json.state).toBe('disabled');
    expect((await t.deliver(hook)).status).toBe(404);

    const again = await t.enableWebhook(hook.routineId, account.email, false);
    expect(again.webhook_id).toBe(hook.webhookId);
    expect(again.url).toBe(hook.webhook.url);
    expect(again.secret).toMatch(SECRET);
    expect(again.secret).not.toBe(hook.secret);
    expect((await t.deliver(hook)).status).toBe(404);
    expect((await t.deliver({ webhookId: hook.webhookId, secret: again.secret })).status).toBe(202);
  });

  it('enabling an enabled webhook again does not silently issue a second live secret', async () => {
    const hook = await t.setupWebhook({ account });
    const result = await enable(hook.routineId);
    if (result.status === 200) {
      // If re-enable is allowed it must behave like a rotation: the old secret dies.
      expect((await t.deliver(hook)).status).toBe(404);
    } else {
      expectProblem(result, result.status);
      expect((await t.deliver(hook)).status).toBe(202);
    }
  });

  it('lists deliveries newest first with exactly the contract fields', async () => {
    const hook = await t.setupWebhook({ account, accountOverrideAllowed: true });
    const sent: Json[] = [];
    sent.push((await t.deliver(hook, { body: '{"data":1}', headers: { 'x-service-idempotency-key': 'first' } })).json);
    sent.push(
      (
        await t.deliver(hook, {
          contentType: 'text/plain; charset=utf-8',
          body: 'second',
          headers: { 'x-service-account-email': 'ALIAS@example.com' },
        })
      ).json,
    );
    sent.push((await t.deliver(hook, { body: '{"data":3}' })).json);

    const list = await t.waitForDeliveries(hook.routineId, 3);
    expect(list.map((d: Json) => d.delivery_id)).toEqual(sent.map((s) => s.delivery_id).reverse());
    for (const item of list) {
      expect(Object.keys(item).sort()).toEqual([
        'content_type',
        'delivery_id',
        'idempotency_key',
        'payload_expires_at',
        'payload_state',
        'received_at',
        'run_id',
        'trigger_account',
      ]);
      expect(Object.keys(item.trigger_account).sort()).toEqual(['account_id', 'email']);
      // Kept, until the default retention (30 days) from its receipt.
      expect(item.payload_state).toBe('kept');
      expect(Date.parse(item.payload_expires_at) - Date.parse(item.received_at)).toBe(2_592_000_000);
      expect(Number.isNaN(Date.parse(item.received_at))).toBe(false);
    }
    const receivedAt = list.map((d: Json) => Date.parse(d.received_at));
    expect([...receivedAt].sort((a, b) => b - a)).toEqual(receivedAt);
    const [third, second, first] = list;
    expect(first).toMatchObject({
      run_id: sent[0].run_id,
      content_type: 'application/json',
      idempotency_key: 'first',
      trigger_account: { account_id: account.id, email: account.email },
    });
    expect(second).toMatchObject({
      content_type: 'text/plain',
      idempotency_key: null,
      trigger_account: { account_id: account.id, email: 'Alias@Example.com' },
    });
    expect(third).toMatchObject({ idempotency_key: null });
  });

  it('lists runs newest first; GET /admin/runs/{id} shows each; an unknown run → 404', async () => {
    const hook = await t.setupWebhook({ account });
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const accepted = (await t.deliver(hook, { body: JSON.stringify({ data: { i } }) })).json as Json;
      runIds.push(accepted.run_id);
      await t.waitForRun(accepted.run_id);
    }
    const runs = await t.waitForRuns(hook.routineId, 3);
    expect(runs.map((r: Json) => r.run_id)).toEqual([...runIds].reverse());
    for (const run of runs)
      expect(run).toMatchObject({ routine_id: hook.routineId, webhook_id: hook.webhookId, delivery_id: expect.stringMatching(/^dlv_/) });

    const detail = (await t.waitForRun(runIds[0] as string)).json as Json;
    for (const field of [
      'run_id',
      'routine_id',
      'webhook_id',
      'delivery_id',
      'trigger_account',
      'status',
      'created_at',
      'initial_message',
      'payload',
      'routine',
    ]) {
      expect(detail).toHaveProperty(field);
    }
    expect(Object.keys(detail.routine)).toEqual(expect.arrayContaining(['tools', 'instructions', 'mode']));
    expect(detail.payload).toEqual({ i: 0 });

    expectProblem(await t.admin('GET', '/admin/runs/run_AAAAAAAAAAAAAAAAAAAAAA'), 404);
    expectProblem(await t.admin('GET', '/admin/runs/not-a-run'), 404);
  });

  it('deliveries and runs of an unknown routine → 404 problem', async () => {
    expectProblem(await t.admin('GET', webhookPath('rtn_AAAAAAAAAAAAAAAAAAAAAA', '/deliveries')), 404);
    expectProblem(await t.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/runs'), 404);
  });
});
