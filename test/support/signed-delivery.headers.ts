/**
 * What a signed sender sends, made with each provider's own library (the signing functions of
 * standardwebhooks, @octokit/webhooks-methods and stripe), and a webhook enabled to check it: the
 * signed-senders integration specs.
 */
import { sign as githubSign } from '@octokit/webhooks-methods';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import type { IngressTestApp } from './ingress-test-app';
import type { AccountBody } from './ingress-admin.client';
import type { HttpResult, Json } from './ingress-http.client';

export interface SignedHook {
  readonly routineId: string;
  readonly webhookId: string;
  readonly secret: string;
  readonly account: AccountBody;
}

export const GITHUB_SECRET = `github-secret-${randomBytes(12).toString('hex')}`;
export const STRIPE_SECRET = `whsec_${randomBytes(24).toString('hex')}`;
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function githubHeaders(secret: string, body: string, delivery = randomUUID(), event = 'push'): Promise<Record<string, string>> {
  return githubSign(secret, body).then((signature) => ({
    'content-type': 'application/json',
    'x-hub-signature-256': signature,
    'x-github-delivery': delivery,
    'x-github-event': event,
  }));
}

export function stripeHeaders(secret: string, body: string, timestamp = nowSeconds()): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }),
  };
}

export function standardHeaders(
  secret: string,
  body: string,
  messageId = `msg_${randomBytes(12).toString('hex')}`,
  at = new Date(),
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

export const stripeEvent = (id = `evt_${randomBytes(12).toString('hex')}`, type = 'payment_intent.succeeded'): string =>
  JSON.stringify({ id, object: 'event', type, data: { object: { id: 'pi_1', amount: 2000 } } });

/** A routine whose webhook is enabled with `verification`, on an account of its own; `secret` the pasted or the made one. */
export async function enableSigned(
  t: IngressTestApp,
  verification: { scheme: string; secret?: string },
): Promise<SignedHook & { answer: Json }> {
  const hook = await t.setupSignedWebhook(verification);
  return { ...hook, secret: verification.secret ?? hook.answer.secret };
}

/** POSTs `body` with `headers` to the webhook `webhookId` of `t`. */
export const signedPoster =
  (t: IngressTestApp) =>
  (webhookId: string, headers: Record<string, string>, body: string | Buffer): Promise<HttpResult> =>
    t.http('POST', t.webhookPath(webhookId), { headers, body });
