/* global Buffer */
/**
 * What a signed sender sends, made on the client side of the benchmarks (timing.mjs,
 * signed-cost.mjs) with node:crypto, in each provider's documented form: GitHub's
 * `X-Hub-Signature-256`, Stripe's `Stripe-Signature`, the Standard Webhooks headers. The server
 * checks them with the providers' own libraries, so a 202 in a benchmark's preflight proves these
 * are right. Plain functions, no I/O.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNED_SCHEMES = ['github', 'stripe', 'standard_webhooks'];

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

/** A secret of each scheme's form that no webhook has: GitHub 48 hex digits, Stripe `whsec_` + 32, Standard Webhooks `whsec_` + base64 of 32 bytes. */
export function strangerSecret(scheme) {
  if (scheme === 'github') return randomBytes(24).toString('hex');
  if (scheme === 'stripe') return `whsec_${randomBytes(16).toString('hex')}`;
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Whole seconds now (the signed timestamp of Stripe and Standard Webhooks). */
export function nowSeconds() {
  return Math.floor(Date.now() / 1000);
}

/**
 * A Stripe-like event as JSON of exactly `bytes` bytes (a `payment_intent.succeeded` with its
 * description padded): `id` is the event id Stripe's idempotency uses, `type` the event type every
 * scheme keeps. GitHub and Standard Webhooks senders send the same body here.
 */
export function eventBody(bytes, id = `evt_${randomBytes(12).toString('hex')}`) {
  const event = (description) =>
    JSON.stringify({
      id,
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
