/**
 * Signed senders end to end over real HTTP, for Shopify, GitLab, Linear, Sentry, PagerDuty, Zendesk
 * and Svix (GitHub, Stripe and Standard Webhooks: signed-senders.int.spec.ts): a delivery signed as
 * the provider signs it (Svix by its own library) is accepted and makes one run with the provider's
 * event type; the same request again replays; and every refusal — a changed body, a wrong secret,
 * a valid signature to an unknown id or to a webhook of another scheme, a signed time outside the
 * tolerance — is the spec's one 404, byte for byte the answer to an unknown id.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';
import {
  GITHUB_SECRET,
  PROVIDER_SECRETS,
  enableSigned,
  gitlabHeaders,
  githubHeaders,
  linearEvent,
  linearHeaders,
  pagerdutyEvent,
  pagerdutyHeaders,
  sentryHeaders,
  shopifyHeaders,
  signedPoster,
  svixHeaders,
  zendeskHeaders,
  type ProviderScheme,
  type SignedHook,
} from '../../../test/support/signed-delivery.headers';

/** Per provider: a body it sends, the headers it signs it with (under `secret`), and the event type the run is told. */
interface Provider {
  readonly scheme: ProviderScheme;
  readonly body: () => string;
  readonly sign: (secret: string, body: string) => Record<string, string>;
  readonly eventType: string;
  /** Another secret in the provider's form: a wrong one. */
  readonly wrongSecret: string;
}

const marked = (fields: Record<string, unknown>): string => JSON.stringify({ ...fields, marker: randomUUID() });

const PROVIDERS: readonly Provider[] = [
  {
    scheme: 'shopify',
    body: () => marked({ id: 820982911946154500, email: 'jon@example.com' }),
    sign: (secret, body) => shopifyHeaders(secret, body),
    eventType: 'orders/create',
    wrongSecret: `shpss_${randomBytes(16).toString('hex')}`,
  },
  {
    scheme: 'gitlab',
    body: () => marked({ object_kind: 'push', ref: 'refs/heads/main' }),
    sign: (secret) => gitlabHeaders(secret),
    eventType: 'push',
    wrongSecret: `gitlab-token-${randomBytes(12).toString('hex')}`,
  },
  {
    scheme: 'linear',
    body: () => linearEvent(),
    sign: (secret, body) => linearHeaders(secret, body),
    eventType: 'Issue',
    wrongSecret: `lin_wh_${randomBytes(24).toString('hex')}`,
  },
  {
    scheme: 'sentry',
    body: () => marked({ action: 'created', data: { issue: { id: '1170820242' } } }),
    sign: (secret, body) => sentryHeaders(secret, body),
    eventType: 'issue',
    wrongSecret: randomBytes(32).toString('hex'),
  },
  {
    scheme: 'pagerduty',
    body: () => pagerdutyEvent(),
    sign: (secret, body) => pagerdutyHeaders([secret], body),
    eventType: 'incident.triggered',
    wrongSecret: randomBytes(48).toString('base64'),
  },
  {
    scheme: 'zendesk',
    body: () => marked({ type: 'zen:event-type:ticket.created', detail: { subject: 'Printer on fire' } }),
    sign: (secret, body) => zendeskHeaders(secret, body),
    eventType: 'zen:event-type:ticket.created',
    wrongSecret: randomBytes(32).toString('base64'),
  },
  {
    scheme: 'svix',
    body: () => marked({ type: 'user.created', data: { id: 'user_29w83sxmDNGwOuEthce5gg56FcC' } }),
    sign: (secret, body) => svixHeaders(secret, body),
    eventType: 'user.created',
    wrongSecret: `whsec_${randomBytes(24).toString('base64')}`,
  },
];

describe('signed senders: Shopify, GitLab, Linear, Sentry, PagerDuty, Zendesk and Svix deliveries', () => {
  const t = useIngressTestApp();
  const post = signedPoster(t);
  const hooks = new Map<ProviderScheme, SignedHook>();
  let github: SignedHook;
  let unknownAnswer: HttpResult;

  /** The one 404: status, body and headers but Date identical to the answer for an unknown id. */
  function expectTheOne404(result: HttpResult): void {
    expect(result.status).toBe(404);
    expect(result.text).toBe(unknownAnswer.text);
    const headers = (r: HttpResult): [string, string][] => [...r.headers.entries()].filter(([name]) => name !== 'date');
    expect(headers(result)).toEqual(headers(unknownAnswer));
  }
  const hookOf = (scheme: ProviderScheme): SignedHook => hooks.get(scheme)!;
  const unknownId = (): string => `whk_${randomBytes(16).toString('base64url')}`;

  beforeAll(async () => {
    await t.startDispatcher();
    // One after the other: each makes an account, and the account catalog takes one change at a time.
    for (const { scheme } of PROVIDERS) {
      const made = await enableSigned(t, { scheme, secret: PROVIDER_SECRETS[scheme] });
      // A pasted secret is never shown again, not even in the answer to enable.
      expect(made.answer.secret).toBeNull();
      hooks.set(scheme, made);
    }
    github = await enableSigned(t, { scheme: 'github', secret: GITHUB_SECRET });
    const body = '{"a":1}';
    unknownAnswer = await post(unknownId(), await githubHeaders(GITHUB_SECRET, body), body);
    expect(unknownAnswer.status).toBe(404);
  });

  it('GET …/webhook shows each scheme and never its secret', async () => {
    for (const { scheme } of PROVIDERS) {
      const view = await t.adminOk('GET', `/admin/routines/${hookOf(scheme).routineId}/webhook`, undefined, 200);
      expect(view).toMatchObject({ state: 'enabled', verification: { scheme }, account_override_allowed: false });
      expect(JSON.stringify(view)).not.toContain(PROVIDER_SECRETS[scheme]);
    }
  });

  describe.each(PROVIDERS.map((provider) => [provider.scheme, provider] as const))('%s', (scheme, provider) => {
    it('a signed delivery is accepted (202) and makes one run: the whole body, the event type in the message; the same request again replays', async () => {
      const hook = hookOf(scheme);
      const body = provider.body();
      const headers = provider.sign(hook.secret, body);
      const accepted = await post(hook.webhookId, headers, body);
      expect(accepted.status).toBe(202);
      const { delivery_id: deliveryId, run_id: runId } = accepted.json as Json;
      const run = (await t.waitForRun(runId)).json as Json;
      expect(run).toMatchObject({ delivery_id: deliveryId, trigger_account: { email: hook.account.email } });
      expect(run.payload).toEqual(JSON.parse(body));
      expect(run.initial_message).toContain(`\nSender: ${scheme} (signature verified)\nEvent type: ${provider.eventType}\n`);
      const [delivery] = (await t.acceptedDeliveries(hook.routineId)).filter((event) => (event.data as Json).deliveryId === deliveryId);
      expect((delivery!.data as Json).sender).toEqual({ scheme, eventType: provider.eventType });

      const again = await post(hook.webhookId, headers, body);
      expect(again.status).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json).toEqual(accepted.json);
    });

    it('the one 404: a changed body (but for GitLab, which signs nothing), a wrong secret, no proof, a bearer header, an unknown id, a webhook of another scheme', async () => {
      const hook = hookOf(scheme);
      const body = provider.body();
      const headers = provider.sign(hook.secret, body);
      if (scheme !== 'gitlab') expectTheOne404(await post(hook.webhookId, headers, body.replace('}', ' }')));
      expectTheOne404(await post(hook.webhookId, provider.sign(provider.wrongSecret, body), body));
      expectTheOne404(await post(hook.webhookId, { 'content-type': 'application/json' }, body));
      expectTheOne404(await post(hook.webhookId, { 'content-type': 'application/json', authorization: `Bearer ${hook.secret}` }, body));
      expectTheOne404(await post(unknownId(), headers, body));
      expectTheOne404(await post(github.webhookId, headers, body));
      // And the other way round: this webhook refuses another provider's valid signature.
      expectTheOne404(await post(hook.webhookId, await githubHeaders(github.secret, body), body));
    });
  });

  it('a signed time outside the tolerance is the one 404 (Linear, Zendesk, Svix); inside it passes', async () => {
    const linear = hookOf('linear');
    const stale = linearEvent(Date.now() - 330_000);
    expectTheOne404(await post(linear.webhookId, linearHeaders(linear.secret, stale), stale));
    const future = linearEvent(Date.now() + 330_000);
    expectTheOne404(await post(linear.webhookId, linearHeaders(linear.secret, future), future));
    const nearly = linearEvent(Date.now() - 240_000);
    expect((await post(linear.webhookId, linearHeaders(linear.secret, nearly), nearly)).status).toBe(202);

    const zendesk = hookOf('zendesk');
    const ticket = JSON.stringify({ type: 'zen:event-type:ticket.created', marker: randomUUID() });
    expectTheOne404(await post(zendesk.webhookId, zendeskHeaders(zendesk.secret, ticket, new Date(Date.now() - 330_000)), ticket));
    expect((await post(zendesk.webhookId, zendeskHeaders(zendesk.secret, ticket, new Date(Date.now() + 240_000)), ticket)).status).toBe(
      202,
    );

    const svix = hookOf('svix');
    const event = JSON.stringify({ type: 'user.created', marker: randomUUID() });
    expectTheOne404(await post(svix.webhookId, svixHeaders(svix.secret, event, undefined, new Date(Date.now() + 330_000)), event));
    expect((await post(svix.webhookId, svixHeaders(svix.secret, event, undefined, new Date(Date.now() - 240_000)), event)).status).toBe(
      202,
    );
  });

  it('PagerDuty: several signatures while its secret is replaced — one matching is enough; none matching is the one 404', async () => {
    const hook = hookOf('pagerduty');
    const body = pagerdutyEvent();
    const old = randomBytes(48).toString('base64');
    expect((await post(hook.webhookId, pagerdutyHeaders([old, hook.secret], body), body)).status).toBe(202);
    expectTheOne404(await post(hook.webhookId, pagerdutyHeaders([old, randomBytes(48).toString('base64')], body), body));
  });

  it('Shopify and Sentry sign only the body: the same body and signature under a new delivery id replays (the signature is the key)', async () => {
    for (const scheme of ['shopify', 'sentry'] as const) {
      const hook = hookOf(scheme);
      const body = PROVIDERS.find((provider) => provider.scheme === scheme)!.body();
      const signed = scheme === 'shopify' ? shopifyHeaders(hook.secret, body) : sentryHeaders(hook.secret, body);
      const first = await post(hook.webhookId, signed, body);
      const capture =
        scheme === 'shopify'
          ? { ...signed, 'x-shopify-event-id': randomUUID(), 'x-shopify-webhook-id': randomUUID() }
          : { ...signed, 'request-id': randomUUID() };
      const again = await post(hook.webhookId, capture, body);
      expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([202, 202, 'true']);
      expect(again.json).toEqual(first.json);
    }
  });

  it('after the signature: a form-encoded body is 415, a missing delivery id 400, as for the other schemes', async () => {
    const shopify = hookOf('shopify');
    const form = 'a=1&b=2';
    const formHeaders = { ...shopifyHeaders(shopify.secret, form), 'content-type': 'application/x-www-form-urlencoded' };
    expect((await post(shopify.webhookId, formHeaders, form)).json).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    const pagerduty = hookOf('pagerduty');
    const noId = JSON.stringify({ event: { event_type: 'incident.triggered' } });
    expect((await post(pagerduty.webhookId, pagerdutyHeaders([pagerduty.secret], noId), noId)).json).toMatchObject({
      status: 400,
      code: 'invalid_delivery_id',
    });
    const gitlab = hookOf('gitlab');
    const withoutKeys = gitlabHeaders(gitlab.secret);
    delete withoutKeys['idempotency-key'];
    delete withoutKeys['x-gitlab-event-uuid'];
    expect((await post(gitlab.webhookId, withoutKeys, '{"object_kind":"push"}')).json).toMatchObject({
      status: 400,
      code: 'invalid_delivery_id',
    });
  });

  it("a secret not in the provider's form is refused at enable, saying where to find the right one", async () => {
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const path = `/admin/routines/${routine.id}/webhook/enable`;
    const cases: [unknown, RegExp][] = [
      [{ scheme: 'linear', secret: `lin_api_${randomBytes(20).toString('hex')}` }, /lin_wh_/],
      [{ scheme: 'sentry', secret: 'sntrys_not-a-client-secret' }, /Client Secret/],
      [{ scheme: 'shopify' }, /signing secret/],
      [{ scheme: 'svix', secret: 'not-whsec' }, /whsec_/],
    ];
    for (const [verification, detail] of cases) {
      const result = await t.admin('POST', path, { default_account: account.email, account_override_allowed: false, verification });
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ code: 'signing_secret_invalid', detail: expect.stringMatching(detail) });
    }
  });
});
