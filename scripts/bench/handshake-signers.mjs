/* global Buffer */
/**
 * What the providers with a URL-verification handshake send (Slack, Zoom, Discord, Twitch, X, Meta,
 * Microsoft Graph), made on the client side of the benchmarks with node:crypto in each provider's
 * documented form: their credentials, signed requests and handshakes. signers.mjs re-exports these
 * and signs with them (signedDelivery). Plain functions, no I/O.
 */
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** The schemes whose provider verifies the URL with a handshake (docs/signed-senders.md). */
export const HANDSHAKE_SCHEMES = ['slack', 'zoom', 'discord', 'twitch', 'x', 'meta', 'microsoft_graph'];

/** Microsoft Graph's clientState in the benchmarks: always this many characters (same-size requests). */
const CLIENT_STATE_CHARS = 32;

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
      return { headers: { ...json, 'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(body).digest('hex')}` }, body };
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
