/**
 * Signed senders end to end over real HTTP: deliveries signed by each provider's own library (the
 * signing functions of standardwebhooks, @octokit/webhooks-methods and stripe) are accepted and
 * make exactly one run each, a provider's retry replays, and every way a signature can fail is the
 * spec's one 404 — byte for byte the answer to an unknown id. A GitHub body sent again under another
 * X-GitHub-Delivery: signed-senders-github-replay.int.spec.ts.
 */
import { EMBEDDED_READ_MODEL_FILE } from '@wts/platform';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';
import {
  GITHUB_SECRET,
  STRIPE_SECRET,
  enableSigned,
  githubHeaders,
  nowSeconds,
  signedPoster,
  standardHeaders,
  stripeEvent,
  stripeHeaders,
  type SignedHook,
} from '../../../test/support/signed-delivery.headers';

describe('signed senders: GitHub, Stripe and Standard Webhooks deliveries', () => {
  const t = useIngressTestApp();
  let github: SignedHook;
  let stripe: SignedHook;
  let standard: SignedHook;
  let unknownAnswer: HttpResult;

  const post = signedPoster(t);

  /** The one 404: status, body and headers but Date identical to the answer for an unknown id. */
  function expectTheOne404(result: HttpResult): void {
    expect(result.status).toBe(404);
    expect(result.text).toBe(unknownAnswer.text);
    const headers = (r: HttpResult): [string, string][] => [...r.headers.entries()].filter(([name]) => name !== 'date');
    expect(headers(result)).toEqual(headers(unknownAnswer));
  }

  beforeAll(async () => {
    await t.startDispatcher();
    const made = await Promise.all([
      enableSigned(t, { scheme: 'github', secret: GITHUB_SECRET }),
      enableSigned(t, { scheme: 'stripe', secret: STRIPE_SECRET }),
      enableSigned(t, { scheme: 'standard_webhooks' }),
    ]);
    [github, stripe, standard] = made;
    // A pasted secret is never shown again, not even in the answer to enable; a made one is shown once.
    expect(made[0].answer.secret).toBeNull();
    expect(made[1].answer.secret).toBeNull();
    expect(made[2].answer.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"a":1}';
    unknownAnswer = await post(`whk_${randomBytes(16).toString('base64url')}`, await githubHeaders(GITHUB_SECRET, body), body);
    expect(unknownAnswer.status).toBe(404);
  });

  it('GET …/webhook shows the scheme and never a secret', async () => {
    for (const [hook, scheme] of [
      [github, 'github'],
      [stripe, 'stripe'],
      [standard, 'standard_webhooks'],
    ] as const) {
      const view = await t.adminOk('GET', `/admin/routines/${hook.routineId}/webhook`, undefined, 200);
      expect(view).toMatchObject({ state: 'enabled', verification: { scheme }, account_override_allowed: false });
      expect(JSON.stringify(view)).not.toContain(hook.secret);
      expect(view).not.toHaveProperty('secret');
    }
  });

  describe.each([
    ['github', () => github, async (hook: SignedHook, body: string) => githubHeaders(hook.secret, body), 'push'],
    [
      'stripe',
      () => stripe,
      (hook: SignedHook, body: string) => Promise.resolve(stripeHeaders(hook.secret, body)),
      'payment_intent.succeeded',
    ],
    [
      'standard_webhooks',
      () => standard,
      (hook: SignedHook, body: string) => Promise.resolve(standardHeaders(hook.secret, body)),
      'user.created',
    ],
  ] as const)('%s', (scheme, hookOf, headersFor, eventType) => {
    const bodyFor = (): string =>
      scheme === 'stripe'
        ? stripeEvent()
        : JSON.stringify({ type: eventType, data: { id: randomUUID() }, account_email: 'not-a-selection@example.com' });

    it('a delivery signed by the provider library is accepted and makes exactly one run: the whole body, the event type in the message', async () => {
      const hook = hookOf();
      const body = bodyFor();
      const accepted = await post(hook.webhookId, await headersFor(hook, body), body);
      expect(accepted.status).toBe(202);
      const { delivery_id: deliveryId, run_id: runId } = accepted.json as Json;
      const run = (await t.waitForRun(runId)).json as Json;
      expect(run).toMatchObject({ delivery_id: deliveryId, trigger_account: { email: hook.account.email } });
      // The payload is the whole body (a provider's data member is not unwrapped).
      expect(run.payload).toEqual(JSON.parse(body));
      expect(run.initial_message).toContain(`\nSender: ${scheme} (signature verified)\nEvent type: ${eventType}\n`);
      const [delivery] = (await t.acceptedDeliveries(hook.routineId)).filter((event) => (event.data as Json).deliveryId === deliveryId);
      expect((delivery!.data as Json).sender).toEqual({ scheme, eventType });
    });

    it("the provider's retry of a delivery (same delivery id, signed again) replays: one delivery, one run", async () => {
      const hook = hookOf();
      const body = bodyFor();
      const first = await post(hook.webhookId, await headersFor(hook, body), body);
      expect(first.status).toBe(202);
      // A retry: the same delivery id and body, a fresh signature (and timestamp) from the provider.
      const retryHeaders = await headersFor(hook, body);
      if (scheme === 'github') {
        const firstDelivery = (await t.acceptedDeliveries(hook.routineId)).map((event) => (event.data as Json).idempotencyKey);
        retryHeaders['x-github-delivery'] = firstDelivery[firstDelivery.length - 1];
      }
      if (scheme === 'standard_webhooks') {
        const ids = (await t.acceptedDeliveries(hook.routineId)).map((event) => (event.data as Json).idempotencyKey as string);
        const messageId = ids[ids.length - 1]!;
        Object.assign(retryHeaders, standardHeaders(hook.secret, body, messageId));
      }
      const retry = await post(hook.webhookId, retryHeaders, body);
      expect(retry.status).toBe(202);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.json).toEqual(first.json);
      await t.waitForRun((first.json as Json).run_id);
      const runs = (await t.createdRuns(hook.routineId)).filter(
        (event) => (event.data as Json).deliveryId === (first.json as Json).delivery_id,
      );
      expect(runs).toHaveLength(1);
    });

    it('a tampered body, a wrong secret and a bearer header each get the one 404', async () => {
      const hook = hookOf();
      const body = bodyFor();
      const headers = await headersFor(hook, body);
      expectTheOne404(await post(hook.webhookId, headers, body.replace('}', ' }')));
      const wrong = await headersFor(
        {
          ...hook,
          secret:
            scheme === 'github'
              ? 'another-secret-of-length'
              : scheme === 'stripe'
                ? STRIPE_SECRET.replace(/.$/, 'x')
                : `whsec_${randomBytes(32).toString('base64')}`,
        },
        body,
      );
      expectTheOne404(await post(hook.webhookId, wrong, body));
      expectTheOne404(await post(hook.webhookId, { 'content-type': 'application/json', authorization: `Bearer ${hook.secret}` }, body));
      expectTheOne404(await post(hook.webhookId, { 'content-type': 'application/json' }, body));
    });

    it('a valid signature to an unknown id or a webhook of another scheme is the one 404', async () => {
      const hook = hookOf();
      const body = bodyFor();
      const headers = await headersFor(hook, body);
      expectTheOne404(await post(`whk_${randomBytes(16).toString('base64url')}`, headers, body));
      const other = scheme === 'github' ? stripe : github;
      expectTheOne404(await post(other.webhookId, headers, body));
    });
  });

  it('stale and future timestamps beyond 5 minutes are the one 404; inside the tolerance they pass', async () => {
    const body = stripeEvent();
    expectTheOne404(await post(stripe.webhookId, stripeHeaders(stripe.secret, body, nowSeconds() - 330), body));
    expectTheOne404(await post(stripe.webhookId, stripeHeaders(stripe.secret, body, nowSeconds() + 330), body));
    expect((await post(stripe.webhookId, stripeHeaders(stripe.secret, body, nowSeconds() - 240), body)).status).toBe(202);
    const standardBody = '{"type":"user.created"}';
    const old = new Date(Date.now() - 330_000);
    const future = new Date(Date.now() + 330_000);
    expectTheOne404(await post(standard.webhookId, standardHeaders(standard.secret, standardBody, undefined, old), standardBody));
    expectTheOne404(await post(standard.webhookId, standardHeaders(standard.secret, standardBody, undefined, future), standardBody));
    const nearly = new Date(Date.now() + 240_000);
    expect((await post(standard.webhookId, standardHeaders(standard.secret, standardBody, undefined, nearly), standardBody)).status).toBe(
      202,
    );
  });

  it('the owner sees why signed attempts were refused (callers saw only the 404)', async () => {
    const body = stripeEvent();
    await post(stripe.webhookId, stripeHeaders(stripe.secret, body, nowSeconds() - 3600), body);
    await post(stripe.webhookId, { 'content-type': 'application/json', authorization: 'Bearer whsec_x' }, body);
    await post(stripe.webhookId, await githubHeaders(GITHUB_SECRET, body), body);
    await post(stripe.webhookId, stripeHeaders('whsec_notthesecretatallnotatall', body), body);
    const reasons = await eventually(
      async () => {
        const listed = (await t.adminOk('GET', `/admin/routines/${stripe.routineId}/webhook/attempts`, undefined, 200)) as Json;
        const found = new Set((listed.attempts as Json[]).map((attempt) => attempt.reason as string));
        return ['timestamp_outside_tolerance', 'wrong_scheme', 'signature_mismatch'].every((reason) => found.has(reason))
          ? found
          : undefined;
      },
      8000,
      'the refused signed attempts listed for the owner',
    );
    expect(reasons).toBeDefined();
  });

  it('after rotate the old secret is dead at once and the new one works (GitHub takes the pasted one)', async () => {
    const refused = await t.admin('POST', `/admin/routines/${github.routineId}/webhook/rotate`, {});
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'signing_secret_invalid' });
    const next = `github-rotated-${randomBytes(12).toString('hex')}`;
    const rotated = await t.adminOk('POST', `/admin/routines/${github.routineId}/webhook/rotate`, { secret: next }, 200);
    expect(rotated).toMatchObject({ secret: null, verification: { scheme: 'github' } });
    const body = '{"zen":"Keep it logically awesome."}';
    expectTheOne404(await post(github.webhookId, await githubHeaders(GITHUB_SECRET, body), body));
    expect((await post(github.webhookId, await githubHeaders(next, body), body)).status).toBe(202);
    github = { ...github, secret: next };

    const made = await t.adminOk('POST', `/admin/routines/${standard.routineId}/webhook/rotate`, {}, 200);
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.secret).not.toBe(standard.secret);
    const standardBody = '{"type":"user.created"}';
    expectTheOne404(await post(standard.webhookId, standardHeaders(standard.secret, standardBody), standardBody));
    expect((await post(standard.webhookId, standardHeaders(made.secret, standardBody), standardBody)).status).toBe(202);
    standard = { ...standard, secret: made.secret };
  });

  it('a disabled signed webhook is the one 404 even with a valid signature; enabling again takes a new secret', async () => {
    const hook = await enableSigned(t, { scheme: 'github', secret: GITHUB_SECRET });
    const body = '{"action":"opened"}';
    expect((await post(hook.webhookId, await githubHeaders(GITHUB_SECRET, body), body)).status).toBe(202);
    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/disable`, undefined, 200);
    expectTheOne404(await post(hook.webhookId, await githubHeaders(GITHUB_SECRET, body), body));
  });

  it('after the signature: 415, 400 for invalid JSON or a missing delivery id, as for bearer', async () => {
    const xml = '<a/>';
    const xmlHeaders = { ...(await githubHeaders(github.secret, xml)), 'content-type': 'application/xml' };
    expect((await post(github.webhookId, xmlHeaders, xml)).json).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    const broken = '{"id":';
    expect((await post(stripe.webhookId, stripeHeaders(stripe.secret, broken), broken)).json).toMatchObject({
      status: 400,
      code: 'invalid_json',
    });
    const noId = '{"type":"charge.failed"}';
    expect((await post(stripe.webhookId, stripeHeaders(stripe.secret, noId), noId)).json).toMatchObject({
      status: 400,
      code: 'invalid_delivery_id',
    });
    const githubNoDelivery = await githubHeaders(github.secret, '{}');
    delete githubNoDelivery['x-github-delivery'];
    expect((await post(github.webhookId, githubNoDelivery, '{}')).json).toMatchObject({ status: 400, code: 'invalid_delivery_id' });
  });

  it('a signed body over the limit is a 413 for a known and an unknown id alike (it cannot be checked unread)', async () => {
    const big = JSON.stringify({ type: 'user.created', pad: 'x'.repeat(t.config.limits.maxPayloadBytes) });
    const headers = standardHeaders(standard.secret, big);
    expect((await post(standard.webhookId, headers, big)).status).toBe(413);
    expect((await post(`whk_${randomBytes(16).toString('base64url')}`, headers, big)).status).toBe(413);
  });

  it('no signing secret is in the store or the read models in plaintext; the read models do not hold its ciphertext either', async () => {
    const filesOf = (base: string): Buffer =>
      Buffer.concat(
        ['', '-wal', '-shm']
          .map((suffix) => base + suffix)
          .filter((file) => existsSync(file))
          .map((file) => readFileSync(file)),
      );
    const storeBytes = filesOf(t.storeFile);
    const readModelBytes = filesOf(join(t.dataDir, EMBEDDED_READ_MODEL_FILE));
    expect(readModelBytes.length).toBeGreaterThan(0);
    for (const secret of [GITHUB_SECRET, STRIPE_SECRET, standard.secret, github.secret]) {
      expect(storeBytes.includes(Buffer.from(secret))).toBe(false);
      expect(readModelBytes.includes(Buffer.from(secret))).toBe(false);
    }
    const sealed = (await t.allEvents()).filter((event) => event.type === 'SigningSecretSealed');
    expect(sealed.length).toBeGreaterThanOrEqual(5);
    for (const event of sealed) {
      const { ciphertext } = (event.data as Json).sealed as { ciphertext: string };
      expect(readModelBytes.includes(Buffer.from(ciphertext))).toBe(false);
    }
  });

  it('signed schemes refuse account override, a bearer secret cannot be pasted, and a bad provider secret says why', async () => {
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const path = `/admin/routines/${routine.id}/webhook/enable`;
    const cases: [unknown, string][] = [
      [{ scheme: 'github', secret: GITHUB_SECRET }, 'validation_failed'],
      [{ scheme: 'stripe', secret: 'sk_live_123' }, 'signing_secret_invalid'],
      [{ scheme: 'github' }, 'signing_secret_invalid'],
      [{ scheme: 'bearer', secret: 'whsec_mine' }, 'signing_secret_invalid'],
      [{ scheme: 'mtls' }, 'validation_failed'],
    ];
    for (const [index, [verification, code]] of cases.entries()) {
      const result = await t.admin('POST', path, { default_account: account.email, account_override_allowed: index === 0, verification });
      expect({ verification, status: result.status, code: (result.json as Json).code }).toEqual({ verification, status: 400, code });
    }
    expect((await t.adminOk('GET', `/admin/routines/${routine.id}/webhook`, undefined, 200)).state).toBe('not_configured');
  });
});
