/* global Buffer */
/**
 * What a signed sender sends, made on the client side of the benchmarks (timing.mjs,
 * signed-cost.mjs) with node:crypto, in each provider's documented form: GitHub's
 * `X-Hub-Signature-256`, Stripe's `Stripe-Signature`, the Standard Webhooks headers, and the
 * providers with a handshake (Slack, Zoom, Discord, Twitch, X, Meta, Microsoft Graph:
 * `signedRequest`). The server checks them by the providers' algorithms, so a 202 in a
 * benchmark's preflight proves these are right. Plain functions, no I/O.
 */
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

export const SIGNED_SCHEMES = [
  'github',
  'stripe',
  'standard_webhooks',
  'slack',
  'zoom',
  'discord',
  'twitch',
  'x',
  'meta',
  'microsoft_graph',
];

/** The schemes whose provider verifies the URL with a handshake (docs/signed-senders.md). */
export const HANDSHAKE_SCHEMES = ['slack', 'zoom', 'discord', 'twitch', 'x', 'meta', 'microsoft_graph'];

/** The schemes that sign a timestamp the server holds to its tolerance (the stale kinds of timing-signed.mjs). */
export const TIMESTAMPED_SCHEMES = ['stripe', 'standard_webhooks', 'slack', 'zoom', 'discord', 'twitch'];

/** Microsoft Graph's clientState in the benchmarks: always this many characters (same-size requests). */
const CLIENT_STATE_CHARS = 32;

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
 * A secret of each scheme's form that no webhook has: GitHub 48 hex digits, Stripe `whsec_` + 32,
 * Standard Webhooks `whsec_` + base64 of 32 bytes; the handshake providers' signing keys
 * (`credential(scheme).key`: Discord's a private key, Graph's a clientState).
 */
export function strangerSecret(scheme) {
  if (scheme === 'github') return randomBytes(24).toString('hex');
  if (scheme === 'stripe') return `whsec_${randomBytes(16).toString('hex')}`;
  if (HANDSHAKE_SCHEMES.includes(scheme)) return credential(scheme).key;
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A credential of a handshake provider: what the enable body pastes (`fields`, beside `scheme`)
 * and what signs its requests (`key`): the secret; Discord's private key (its public key pasted);
 * Graph's clientState (carried in the body); Meta's App Secret (its verify token pasted too).
 */
export function credential(scheme) {
  const secret = randomBytes(16).toString('hex');
  switch (scheme) {
    case 'discord': {
      const pair = generateKeyPairSync('ed25519');
      const publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
      return { fields: { public_key: publicKey }, key: pair.privateKey };
    }
    case 'meta':
      return { fields: { secret, verify_token: `verify-${randomBytes(8).toString('hex')}` }, key: secret };
    case 'microsoft_graph': {
      const clientState = randomBytes(CLIENT_STATE_CHARS).toString('base64url').slice(0, CLIENT_STATE_CHARS);
      return { fields: { client_state: clientState }, key: clientState };
    }
    default:
      return { fields: { secret }, key: secret };
  }
}

/** `v0=` and the hex HMAC-SHA256 of `v0:<seconds>:<body>` (Slack's and Zoom's). */
function v0Signature(secret, seconds, body) {
  return `v0=${createHmac('sha256', secret).update(`v0:${seconds}:`).update(body).digest('hex')}`;
}

/**
 * A handshake provider's request of `body` under `key` at `seconds`: its headers, and for Graph
 * the body with the clientState in it (`{"value":[{…,"clientState":key,"data":<body as a string>}]}`).
 * `messageId`: Twitch's message id (signed, its delivery id).
 */
export function signedRequest(scheme, key, body, seconds, messageId = `${randomBytes(16).toString('hex')}`) {
  const json = { 'content-type': 'application/json' };
  switch (scheme) {
    case 'slack':
      return {
        headers: { ...json, 'x-slack-request-timestamp': String(seconds), 'x-slack-signature': v0Signature(key, seconds, body) },
        body,
      };
    case 'zoom':
      return { headers: { ...json, 'x-zm-request-timestamp': String(seconds), 'x-zm-signature': v0Signature(key, seconds, body) }, body };
    case 'discord': {
      const signature = sign(null, Buffer.concat([Buffer.from(String(seconds)), Buffer.from(body)]), key).toString('hex');
      return { headers: { ...json, 'x-signature-ed25519': signature, 'x-signature-timestamp': String(seconds) }, body };
    }
    case 'twitch': {
      const timestamp = new Date(seconds * 1000).toISOString();
      const signature = `sha256=${createHmac('sha256', key)
        .update(messageId + timestamp)
        .update(body)
        .digest('hex')}`;
      return {
        headers: {
          ...json,
          'twitch-eventsub-message-id': messageId,
          'twitch-eventsub-message-timestamp': timestamp,
          'twitch-eventsub-message-signature': signature,
          'twitch-eventsub-message-type': 'notification',
        },
        body,
      };
    }
    case 'x':
      return {
        headers: { ...json, 'x-twitter-webhooks-signature': `sha256=${createHmac('sha256', key).update(body).digest('base64')}` },
        body,
      };
    case 'meta':
      return { headers: { ...json, 'x-hub-signature-256': githubSignature(key, body) }, body };
    case 'microsoft_graph':
      return {
        headers: json,
        body: JSON.stringify({ value: [{ changeType: 'created', resource: 'Users/bench', clientState: key, data: body }] }),
      };
    default:
      throw new Error(`signedRequest: not a handshake provider: ${scheme}`);
  }
}

/** A provider's URL-verification handshake for the benchmarks: path suffix (a query) or body and headers, per scheme. */
export function handshakeRequest(scheme, key, seconds) {
  switch (scheme) {
    case 'slack':
      return {
        method: 'POST',
        query: '',
        ...signedRequest(scheme, key, JSON.stringify({ type: 'url_verification', challenge: 'c'.repeat(48) }), seconds),
      };
    case 'x':
      return { method: 'GET', query: `?crc_token=${randomBytes(16).toString('hex')}`, headers: {}, body: undefined };
    case 'microsoft_graph':
      return {
        method: 'POST',
        query: `?validationToken=${randomBytes(16).toString('hex')}`,
        headers: { 'content-type': 'text/plain' },
        body: '',
      };
    default:
      throw new Error(`handshakeRequest: not benchmarked for ${scheme}`);
  }
}

/** Whole seconds now (the signed timestamp of Stripe, Standard Webhooks, Slack, Zoom, Discord, Twitch). */
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
