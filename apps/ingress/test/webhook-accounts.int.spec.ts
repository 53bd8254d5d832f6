/**
 * Spec rules 7–10, DESIGN "Account selection": the request's account (account_email for JSON,
 * X-Service-Account-Email for text/plain) when provided and allowed, else the default, else the
 * primary; exact match ignoring case on an active account's email or synced alias; inside the
 * routine's scope; trigger_account shows the address that matched, as stored.
 */
import { IngressTestApp, useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { AccountBody, WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

describe('public endpoint: trigger account selection', () => {
  const t = useIngressTestApp();
  let alice: AccountBody; // primary, with an alias
  let bob: AccountBody;
  let carol: AccountBody; // never in scope
  let dave: AccountBody; // in scope, made inactive
  let open: WebhookFixture; // override allowed, default bob
  let closed: WebhookFixture; // override not allowed, default alice

  beforeAll(async () => {
    alice = await t.createAccount({ email: 'Alice@Example.com', aliases: ['Sales@Example.com'] });
    bob = await t.createAccount({ email: 'bob@example.com' });
    carol = await t.createAccount({ email: 'carol@example.com' });
    dave = await t.createAccount({ email: 'dave@example.com', aliases: ['d.alias@example.com'] });
    expect(alice.primary).toBe(true);
    open = await t.setupWebhook({ account: bob, accountOverrideAllowed: true, routine: { account_scope: [alice.id, bob.id, dave.id] } });
    closed = await t.setupWebhook({ account: alice, accountOverrideAllowed: false, routine: { account_scope: [alice.id, bob.id] } });
    await t.patchAccount(dave.id, { active: false });
    await t.startDispatcher();
  });

  const selectJson = (hook: WebhookFixture, accountEmail: unknown): ReturnType<IngressTestApp['deliver']> =>
    t.deliver(hook, { body: JSON.stringify({ account_email: accountEmail, data: { n: 1 } }) });

  const selectText = (hook: WebhookFixture, accountEmail: string, body = 'hello'): ReturnType<IngressTestApp['deliver']> =>
    t.deliver(hook, { contentType: 'text/plain', body, headers: { 'x-service-account-email': accountEmail } });

  /** The trigger_account of an accepted delivery, from the deliveries listing. */
  async function triggerAccountOf(hook: WebhookFixture, deliveryId: string): Promise<Json> {
    return (await t.waitForDelivery(hook.routineId, deliveryId)).trigger_account;
  }

  it('uses the default account when the request selects none', async () => {
    const result = await t.deliver(open);
    expect(result.status).toBe(202);
    expect(await triggerAccountOf(open, (result.json as Json).delivery_id)).toEqual({ account_id: bob.id, email: 'bob@example.com' });
  });

  it.each(['Alice@Example.com', 'alice@example.com', 'ALICE@EXAMPLE.COM'])(
    'account_email %s matches the account ignoring case',
    async (email) => {
      const result = await selectJson(open, email);
      expect(result.status).toBe(202);
      expect(await triggerAccountOf(open, (result.json as Json).delivery_id)).toEqual({ account_id: alice.id, email: 'Alice@Example.com' });
    },
  );

  it('a synced alias matches ignoring case, and trigger_account shows the alias as stored (deliveries and run)', async () => {
    const result = await selectJson(open, 'sales@EXAMPLE.com');
    expect(result.status).toBe(202);
    const accepted = result.json as Json;
    const expected = { account_id: alice.id, email: 'Sales@Example.com' };
    expect(await triggerAccountOf(open, accepted.delivery_id)).toEqual(expected);
    const run = (await t.waitForRun(accepted.run_id)).json as Json;
    expect(run.trigger_account).toEqual(expected);
    // The listing is a read model: it may show the run a moment after GET /admin/runs/{id} does.
    expect((await t.waitForListedRun(open.routineId, accepted.run_id)).trigger_account).toEqual(expected);
  });

  it.each([
    [' alice@example.com', 'leading space'],
    ['alice@example.com ', 'trailing space'],
    ['alice@example', 'prefix of the address'],
    ['lice@example.com', 'suffix of the address'],
    ['alice', 'local part only'],
    ['sales@example.co', 'prefix of an alias'],
    ['', 'empty string'],
    ['nobody@example.com', 'unknown address'],
  ])('account_email %j does not match (%s) → 400 account_not_found', async (email) => {
    expectProblem(await selectJson(open, email), 400, 'account_not_found');
  });

  it('an inactive account (its email and its alias) → 400 account_not_found', async () => {
    expectProblem(await selectJson(open, 'dave@example.com'), 400, 'account_not_found');
    expectProblem(await selectJson(open, 'D.Alias@example.com'), 400, 'account_not_found');
  });

  it('an active account outside the routine scope → 400 account_out_of_scope', async () => {
    expect(carol.active).toBe(true);
    expectProblem(await selectJson(open, carol.email), 400, 'account_out_of_scope');
    expectProblem(await selectJson(open, 'CAROL@example.com'), 400, 'account_out_of_scope');
  });

  it.each([
    ['a number', 42],
    ['an object', { email: 'alice@example.com' }],
    ['an array', ['alice@example.com']],
    ['a boolean', true],
  ])('account_email that is %s → 400', async (_name, value) => {
    const problem = expectProblem(await selectJson(open, value), 400);
    expect(problem.code).toBe('invalid_account_email');
  });

  it('text/plain selects with X-Service-Account-Email, same matching rules', async () => {
    const result = await selectText(open, 'SALES@example.com');
    expect(result.status).toBe(202);
    expect(await triggerAccountOf(open, (result.json as Json).delivery_id)).toEqual({ account_id: alice.id, email: 'Sales@Example.com' });

    const unknown = await selectText(open, 'nobody@example.com');
    expectProblem(unknown, 400, 'account_not_found');
    const outOfScope = await selectText(open, 'carol@example.com');
    expectProblem(outOfScope, 400, 'account_out_of_scope');
  });

  it('JSON with X-Service-Account-Email → 400 account_header_requires_text', async () => {
    const result = await t.deliver(open, { body: '{"data":1}', headers: { 'x-service-account-email': 'alice@example.com' } });
    expectProblem(result, 400, 'account_header_requires_text');
  });

  it('text/plain ignores an account_email written inside the text', async () => {
    const result = await t.deliver(open, { contentType: 'text/plain', body: '{"account_email":"alice@example.com"}' });
    expect(result.status).toBe(202);
    expect(await triggerAccountOf(open, (result.json as Json).delivery_id)).toEqual({ account_id: bob.id, email: 'bob@example.com' });
  });

  describe('override not allowed', () => {
    it.each([
      ['the default account itself', 'Alice@Example.com'],
      ['another account in scope', 'bob@example.com'],
      ['an unknown address', 'nobody@example.com'],
      ['an empty string', ''],
    ])('account_email naming %s → 400 account_override_not_allowed', async (_name, email) => {
      expectProblem(await selectJson(closed, email), 400, 'account_override_not_allowed');
    });

    it('X-Service-Account-Email on text/plain → 400 account_override_not_allowed', async () => {
      const result = await selectText(closed, 'bob@example.com', 'x');
      expectProblem(result, 400, 'account_override_not_allowed');
    });

    it('no selection → 202 with the default account; account_email inside data is not a selection', async () => {
      const plain = await t.deliver(closed);
      expect(plain.status).toBe(202);
      const nested = await t.deliver(closed, { body: JSON.stringify({ data: { account_email: 'bob@example.com' } }) });
      expect(nested.status).toBe(202);
      expect(await triggerAccountOf(closed, (nested.json as Json).delivery_id)).toEqual({
        account_id: alice.id,
        email: 'Alice@Example.com',
      });
    });
  });

  describe('resolution order', () => {
    it('falls back to the primary account when the default account became inactive', async () => {
      const erin = await t.createAccount({ email: 'erin@example.com' });
      const hook = await t.setupWebhook({ account: erin, routine: { account_scope: [alice.id, erin.id] } });
      const before = await t.deliver(hook);
      expect(before.status).toBe(202);
      expect(await triggerAccountOf(hook, (before.json as Json).delivery_id)).toEqual({ account_id: erin.id, email: 'erin@example.com' });

      await t.patchAccount(erin.id, { active: false });
      const after = await t.deliver(hook);
      expect(after.status).toBe(202);
      const accepted = after.json as Json;
      expect(await triggerAccountOf(hook, accepted.delivery_id)).toEqual({ account_id: alice.id, email: 'Alice@Example.com' });
      expect(((await t.waitForRun(accepted.run_id)).json as Json).trigger_account).toEqual({
        account_id: alice.id,
        email: 'Alice@Example.com',
      });

      await t.patchAccount(erin.id, { active: true });
      const back = await t.deliver(hook);
      expect(await triggerAccountOf(hook, (back.json as Json).delivery_id)).toEqual({ account_id: erin.id, email: 'erin@example.com' });
    });

    it('a default account chosen by its alias is used with that alias', async () => {
      const routine = await t.createRoutine({ account_scope: [alice.id] });
      const webhook = await t.enableWebhook(routine.id, 'sales@example.com', false);
      expect(webhook.default_account.toLowerCase()).toBe('sales@example.com');
      const hook = { webhookId: webhook.webhook_id, secret: webhook.secret, routineId: routine.id } as WebhookFixture;
      const result = await t.deliver(hook);
      expect(result.status).toBe(202);
      expect(await triggerAccountOf(hook, (result.json as Json).delivery_id)).toEqual({ account_id: alice.id, email: 'Sales@Example.com' });
    });

    it('400 when neither the default nor the primary account can be used (never a run without an account)', async () => {
      const frank = await t.createAccount({ email: 'frank@example.com' });
      const hook = await t.setupWebhook({ account: frank, routine: { account_scope: [frank.id] } });
      await t.patchAccount(frank.id, { active: false });
      const before = (await t.acceptedDeliveries(hook.routineId)).length;
      const result = await t.deliver(hook);
      expectProblem(result, 400);
      expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(before);
    });
  });
});
