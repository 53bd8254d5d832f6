/**
 * What a signed sender sends, made with each provider's own library where it has a signing one (the
 * signing functions of standardwebhooks, svix, @octokit/webhooks-methods and stripe), else as its
 * documentation computes it (Shopify, Linear, Sentry, PagerDuty, Zendesk; GitLab sends its token),
 * and a webhook enabled to check it: the signed-senders integration specs.
 */
import { sign as githubSign } from '@octokit/webhooks-methods';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
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

/** Headers of a delivery signed the Standard Webhooks way: a message id, its time and the signature, under `prefix`-* names. */
type StandardStyleHeaders = (secret: string, body: string, messageId?: string, at?: Date) => Record<string, string>;

function standardStyle(prefix: string, sign: (secret: string, messageId: string, at: Date, body: string) => string): StandardStyleHeaders {
  return (secret, body, messageId = `msg_${randomBytes(12).toString('hex')}`, at = new Date()) => ({
    'content-type': 'application/json',
    [`${prefix}-id`]: messageId,
    [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
    [`${prefix}-signature`]: sign(secret, messageId, at, body),
  });
}

/** Standard Webhooks: webhook-* names, signed by standardwebhooks' own Webhook.sign. */
export const standardHeaders = standardStyle('webhook', (secret, messageId, at, body) => new Webhook(secret).sign(messageId, at, body));

/** Secrets in each provider's own form, as an operator pastes them. */
export const PROVIDER_SECRETS = {
  shopify: `shpss_${randomBytes(16).toString('hex')}`,
  gitlab: `gitlab-token-${randomBytes(12).toString('hex')}`,
  linear: `lin_wh_${randomBytes(24).toString('hex')}`,
  sentry: randomBytes(32).toString('hex'),
  pagerduty: randomBytes(48).toString('base64'),
  zendesk: randomBytes(32).toString('base64'),
  svix: `whsec_${randomBytes(24).toString('base64')}`,
} as const;
export type ProviderScheme = keyof typeof PROVIDER_SECRETS;

const hmac = (secret: string, ...parts: string[]): Buffer => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part, 'utf8');
  return mac.digest();
};

/** Shopify: the base64 HMAC of the body under the app's client secret; its event id and topic. */
export function shopifyHeaders(secret: string, body: string, eventId = randomUUID(), topic = 'orders/create'): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-hmac-sha256': hmac(secret, body).toString('base64'),
    'x-shopify-event-id': eventId,
    'x-shopify-webhook-id': randomUUID(),
    'x-shopify-topic': topic,
    'x-shopify-shop-domain': 'shop.myshopify.com',
    'x-shopify-api-version': '2025-01',
  };
}

/** GitLab: the secret token itself, and the idempotency key GitLab keeps across retries. */
export function gitlabHeaders(token: string, idempotencyKey = randomUUID()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gitlab-token': token,
    'idempotency-key': idempotencyKey,
    'x-gitlab-event-uuid': randomUUID(),
    'x-gitlab-event': 'Push Hook',
  };
}

/** Linear: the hex HMAC of the body (whose webhookTimestamp is its signed time); Linear-Delivery. */
export function linearHeaders(secret: string, body: string, delivery = randomUUID()): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'linear-signature': hmac(secret, body).toString('hex'),
    'linear-delivery': delivery,
    'linear-event': 'Issue',
  };
}

export const linearEvent = (webhookTimestamp = Date.now(), marker = randomUUID()): string =>
  JSON.stringify({ action: 'create', type: 'Issue', data: { id: marker, title: 'Printer on fire' }, webhookTimestamp });

/** Sentry: the hex HMAC of the body under the client secret; Request-ID and the resource. */
export function sentryHeaders(secret: string, body: string, requestId = randomUUID(), resource = 'issue'): Record<string, string> {
  return {
    'content-type': 'application/json',
    'sentry-hook-signature': hmac(secret, body).toString('hex'),
    'sentry-hook-timestamp': String(Math.floor(Date.now() / 1000)),
    'sentry-hook-resource': resource,
    'request-id': requestId,
  };
}

/** PagerDuty: `v1=<hex HMAC of the body>` for each secret (several while one is replaced). */
export function pagerdutyHeaders(secrets: readonly string[], body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-pagerduty-signature': secrets.map((secret) => `v1=${hmac(secret, body).toString('hex')}`).join(','),
    'x-webhook-id': randomUUID(),
  };
}

export const pagerdutyEvent = (id = `01${randomBytes(12).toString('hex').toUpperCase()}`, eventType = 'incident.triggered'): string =>
  JSON.stringify({ event: { id, event_type: eventType, resource_type: 'incident', data: { id: 'PGR0VU2', title: 'Disk full' } } });

/** Zendesk: base64(HMAC-SHA256(timestamp + body)) with the ISO timestamp; the invocation id. */
export function zendeskHeaders(secret: string, body: string, at = new Date(), invocationId = String(Date.now())): Record<string, string> {
  const timestamp = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    'content-type': 'application/json',
    'x-zendesk-webhook-signature': hmac(secret, timestamp, body).toString('base64'),
    'x-zendesk-webhook-signature-timestamp': timestamp,
    'x-zendesk-webhook-invocation-id': invocationId,
    'x-zendesk-webhook-id': '01F1KRFQ6BG29CNWFR60NK5FNY',
  };
}

/** Svix: the Standard Webhooks signature under svix-* names, made by svix's own Webhook.sign. */
export const svixHeaders = standardStyle('svix', (secret, messageId, at, body) => new SvixWebhook(secret).sign(messageId, at, body));

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
