/* global Buffer */
/**
 * What a signed sender sends, made on the client side of the benchmarks (timing.mjs,
 * signed-cost.mjs) with node:crypto, in each provider's documented form: GitHub's
 * `X-Hub-Signature-256`, Stripe's `Stripe-Signature`, the Standard Webhooks headers, Shopify's
 * `X-Shopify-Hmac-Sha256`, GitLab's `X-Gitlab-Token`, Linear's `Linear-Signature`, Sentry's
 * `Sentry-Hook-Signature`, PagerDuty's `X-PagerDuty-Signature`, Zendesk's
 * `X-Zendesk-Webhook-Signature`, Svix's `svix-*`, and the providers with a handshake (Slack, Zoom,
 * Discord, Twitch, X, Meta, Microsoft Graph: handshake-signers.mjs). The server checks them as the
 * providers' own libraries (or documented algorithms) do, so a 202 in a benchmark's preflight proves
 * these are right. Plain functions, no I/O.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { HANDSHAKE_SCHEMES, credential, signedRequest } from './handshake-signers.mjs';

export { HANDSHAKE_SCHEMES, credential, handshakeRequest, signedRequest } from './handshake-signers.mjs';

export const SIGNED_SCHEMES = [
  'github',
  'stripe',
  'standard_webhooks',
  'shopify',
  'gitlab',
  'linear',
  'sentry',
  'pagerduty',
  'zendesk',
  'svix',
  ...HANDSHAKE_SCHEMES,
];
/** The schemes that sign a timestamp: a stale one is refused before any HMAC (the stale kinds of timing-signed.mjs). */
export const TIMESTAMPED_SCHEMES = ['stripe', 'standard_webhooks', 'linear', 'zendesk', 'svix', 'slack', 'zoom', 'discord', 'twitch'];

/** `sha256=<hex HMAC-SHA256 of the body>`, the key the secret as typed. */
export function githubSignature(secret, body) {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** `t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the key the whole `whsec_…` string. */
export function stripeSignature(secret, body, seconds) {
  return `t=${seconds},v1=${createHmac('sha256', secret).update(`${seconds}.`).update(body).digest('hex')}`;
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`, the key the base64 after `whsec_`. */
export function standardSignature(secret, messageId, seconds, body) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${seconds}.`).update(body).digest('base64')}`;
}

/**
 * A secret of each scheme's form that no webhook has (the same length for a scheme every time); for
 * the handshake providers, their signing key (`credential(scheme).key`: Discord's a private key,
 * Graph's a clientState).
 */
export function strangerSecret(scheme) {
  if (HANDSHAKE_SCHEMES.includes(scheme)) return credential(scheme).key;
  switch (scheme) {
    case 'github':
      return randomBytes(24).toString('hex');
    case 'stripe':
      return `whsec_${randomBytes(16).toString('hex')}`;
    case 'shopify':
      return `shpss_${randomBytes(16).toString('hex')}`;
    case 'gitlab':
      return randomBytes(24).toString('base64url');
    case 'linear':
      return `lin_wh_${randomBytes(22).toString('hex')}`;
    case 'sentry':
      return randomBytes(32).toString('hex');
    case 'pagerduty':
      return randomBytes(48).toString('base64');
    case 'zendesk':
      return randomBytes(32).toString('base64');
    default:
      return `whsec_${randomBytes(32).toString('base64')}`;
  }
}

const hmac = (secret, ...parts) => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** Linear's time is in its body: `"created":1700000000,` of eventBody gives way to `"webhookTimestamp":<13 digits>,` (12 bytes more). */
const CREATED = '"created":1700000000,';
/** How many bytes a scheme's shape adds to eventBody's: Linear's timestamp, PagerDuty's `{"event":…}`. */
const SHAPE_BYTES = { linear: 12, pagerduty: 10 };

/**
 * An event of exactly `bytes` bytes in the shape the scheme's sender sends: eventBody for most, its
 * event under `event` for PagerDuty (whose delivery id is `event.id`); for Linear, a template whose
 * time signedDelivery writes in.
 */
export function eventBodyFor(scheme, bytes, id) {
  const event = eventBody(bytes - (SHAPE_BYTES[scheme] ?? 0), id);
  return scheme === 'pagerduty' ? `{"event":${event}}` : event;
}

/** Zendesk's signature timestamp: ISO 8601 in UTC to the second. */
export function zendeskTimestamp(seconds) {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * What the scheme's sender sends for `body` (from eventBodyFor) at `seconds`, under `secret`:
 * `{ headers, body }` — the body as sent (Linear's carries its signed time). `id` is the delivery id
 * where a header carries it (GitHub, Standard Webhooks, Shopify, GitLab, Linear, Sentry, Zendesk,
 * Svix, Twitch); Stripe's, PagerDuty's and Slack's are in the body. Graph's body wraps `body`.
 */
export function signedDelivery(scheme, { secret, body, seconds, id }) {
  const json = { 'content-type': 'application/json' };
  switch (scheme) {
    case 'github':
      return {
        body,
        headers: { ...json, 'x-github-delivery': id, 'x-github-event': 'push', 'x-hub-signature-256': githubSignature(secret, body) },
      };
    case 'stripe':
      return {
        body,
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': stripeSignature(secret, body, seconds) },
      };
    case 'standard_webhooks':
      return {
        body,
        headers: {
          ...json,
          'webhook-id': id,
          'webhook-timestamp': String(seconds),
          'webhook-signature': standardSignature(secret, id, seconds, body),
        },
      };
    case 'svix':
      return {
        body,
        headers: {
          ...json,
          'svix-id': id,
          'svix-timestamp': String(seconds),
          'svix-signature': standardSignature(secret, id, seconds, body),
        },
      };
    case 'shopify':
      return {
        body,
        headers: {
          ...json,
          'x-shopify-hmac-sha256': hmac(secret, body).toString('base64'),
          'x-shopify-event-id': id,
          'x-shopify-topic': 'orders/create',
        },
      };
    case 'gitlab':
      return { body, headers: { ...json, 'x-gitlab-token': secret, 'idempotency-key': id, 'x-gitlab-event': 'Push Hook' } };
    case 'linear': {
      if (!body.includes(CREATED)) throw new Error('a Linear body is made by eventBodyFor');
      const signed = body.replace(CREATED, `"webhookTimestamp":${String(seconds * 1000).padStart(13, '0')},`);
      return {
        body: signed,
        headers: { ...json, 'linear-signature': hmac(secret, signed).toString('hex'), 'linear-delivery': id, 'linear-event': 'Issue' },
      };
    }
    case 'sentry':
      return {
        body,
        headers: {
          ...json,
          'sentry-hook-signature': hmac(secret, body).toString('hex'),
          'sentry-hook-resource': 'issue',
          'request-id': id,
        },
      };
    case 'pagerduty':
      return { body, headers: { ...json, 'x-pagerduty-signature': `v1=${hmac(secret, body).toString('hex')}` } };
    case 'zendesk': {
      const timestamp = zendeskTimestamp(seconds);
      return {
        body,
        headers: {
          ...json,
          'x-zendesk-webhook-signature': hmac(secret, timestamp, body).toString('base64'),
          'x-zendesk-webhook-signature-timestamp': timestamp,
          'x-zendesk-webhook-invocation-id': id,
        },
      };
    }
    default:
      // The handshake providers: `id` is Twitch's message id (signed, its delivery id).
      if (HANDSHAKE_SCHEMES.includes(scheme)) return signedRequest(scheme, secret, body, seconds, id);
      throw new Error(`no signer for ${scheme}`);
  }
}

/** Whole seconds now (the signed timestamp of Stripe, Standard Webhooks, Svix, Zendesk, Slack, Zoom, Discord, Twitch; Linear's in milliseconds). */
export function nowSeconds() {
  return Math.floor(Date.now() / 1000);
}

/**
 * A Stripe-like event as JSON of exactly `bytes` bytes (a `payment_intent.succeeded` with its
 * description padded): `id` is the event id Stripe's idempotency uses (and `event_id`, the same,
 * Slack's), `type` the event type every scheme keeps. Every other sender sends the same body here
 * (Microsoft Graph's wraps it: signedRequest).
 */
export function eventBody(bytes, id = `evt_${randomBytes(12).toString('hex')}`) {
  const event = (description) =>
    JSON.stringify({
      id,
      // Slack's delivery id (event_id): the same id, so one body serves every scheme.
      event_id: id,
      object: 'event',
      api_version: '2024-06-20',
      created: 1_700_000_000,
      type: 'payment_intent.succeeded',
      livemode: false,
      pending_webhooks: 1,
      request: { id: 'req_8QyKd0r3Yx4tZs', idempotency_key: '6b1c7f0e-3f55-4d7e-9a0c-1d2f3e4a5b6c' },
      data: {
        object: {
          id: 'pi_3OqWbZ2eZvKYlo2C1x9gHk7L',
          object: 'payment_intent',
          amount: 2000,
          amount_received: 2000,
          currency: 'eur',
          customer: 'cus_PfFq1aQy8s6DkX',
          payment_method: 'pm_1OqWbY2eZvKYlo2CzR3uN0aB',
          payment_method_types: ['card'],
          status: 'succeeded',
          metadata: { order_id: '42-1337', channel: 'web' },
          description,
        },
      },
    });
  const fill = bytes - Buffer.byteLength(event(''));
  if (fill < 0) throw new Error(`an event body takes at least ${bytes - fill} bytes`);
  const body = event('Order 42-1337 (3 items, shipped to Lyon). '.repeat(Math.ceil(fill / 40) + 1).slice(0, fill));
  if (Buffer.byteLength(body) !== bytes) throw new Error('event body length');
  return body;
}
