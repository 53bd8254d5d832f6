import type { SignedScheme } from '@wts/contracts';
import { isLosslessNumber } from 'lossless-json';
import { isPlainObject, objectMember, stringMember } from './json-members';
import type { SignedRequestHeaders } from './signed-delivery.rules';

/**
 * A provider's URL-verification handshake, as its documentation has it (docs/signed-senders.md,
 * "Handshakes"). It makes no delivery and no run: the service answers it itself.
 *
 * Signed ones arrive as POSTs the provider signs like its deliveries, and are recognised only once
 * the signature checked out: Slack's `url_verification`, Zoom's `endpoint.url_validation`,
 * Discord's PING (interactions: `type` 1; webhook events: `type` 0), Twitch's
 * `webhook_callback_verification`. Query ones are recognised from the query alone: X's CRC
 * (`GET ?crc_token=`), Meta's subscription check (`GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`)
 * and Microsoft Graph's validation (`?validationToken=`, on a POST or a GET).
 */
export type Handshake =
  | { readonly kind: 'slack_url_verification'; readonly scheme: 'slack'; readonly challenge: string }
  | { readonly kind: 'zoom_url_validation'; readonly scheme: 'zoom'; readonly plainToken: string }
  | { readonly kind: 'discord_ping'; readonly scheme: 'discord' }
  | { readonly kind: 'discord_webhook_ping'; readonly scheme: 'discord' }
  | { readonly kind: 'twitch_callback_verification'; readonly scheme: 'twitch'; readonly challenge: string }
  | { readonly kind: 'x_crc'; readonly scheme: 'x'; readonly crcToken: string }
  | { readonly kind: 'meta_subscribe'; readonly scheme: 'meta'; readonly verifyToken: string; readonly challenge: string }
  | { readonly kind: 'graph_validation'; readonly scheme: 'microsoft_graph'; readonly validationToken: string };

export type QueryHandshake = Extract<Handshake, { readonly scheme: 'x' | 'meta' | 'microsoft_graph' }>;

/** The query members a handshake is read from, each its single value as received (URL-decoded). */
export interface HandshakeQuery {
  readonly crcToken?: string | undefined;
  readonly hubMode?: string | undefined;
  readonly hubVerifyToken?: string | undefined;
  readonly hubChallenge?: string | undefined;
  readonly validationToken?: string | undefined;
}

/**
 * The longest challenge or token echoed: providers send well under it (Graph's validation token is
 * about 200 characters, Slack's challenge 50, Meta's a number). Longer is no handshake.
 */
export const MAX_HANDSHAKE_TOKEN_CHARS = 1_024;

const TWITCH_VERIFICATION = 'webhook_callback_verification';

/**
 * The handshake a request's query is, for a method: GET carries X's, Meta's and Graph's; POST only
 * Graph's. Undefined: no handshake (a GET that is none is the one 404; a POST is a delivery).
 */
export function queryHandshakeOf(method: 'GET' | 'POST', query: HandshakeQuery): QueryHandshake | undefined {
  if (query.validationToken !== undefined) {
    return token(query.validationToken)
      ? { kind: 'graph_validation', scheme: 'microsoft_graph', validationToken: query.validationToken }
      : undefined;
  }
  if (method !== 'GET') return undefined;
  if (query.crcToken !== undefined) return token(query.crcToken) ? { kind: 'x_crc', scheme: 'x', crcToken: query.crcToken } : undefined;
  const { hubMode, hubVerifyToken, hubChallenge } = query;
  if (hubMode === 'subscribe' && hubVerifyToken !== undefined && hubChallenge !== undefined && token(hubChallenge)) {
    return { kind: 'meta_subscribe', scheme: 'meta', verifyToken: hubVerifyToken, challenge: hubChallenge };
  }
  return undefined;
}

/**
 * The handshake a verified signed request of `scheme` is, from its headers and its parsed body
 * (plain or lossless-json); undefined: a delivery.
 */
export function signedHandshakeOf(scheme: SignedScheme, headers: SignedRequestHeaders, json: unknown): Handshake | undefined {
  const body = isPlainObject(json) ? json : undefined;
  switch (scheme) {
    case 'slack': {
      const challenge = body && stringMember(body, 'type') === 'url_verification' ? stringMember(body, 'challenge') : undefined;
      return challenge !== undefined && token(challenge) ? { kind: 'slack_url_verification', scheme, challenge } : undefined;
    }
    case 'zoom': {
      const plainToken =
        body && stringMember(body, 'event') === 'endpoint.url_validation'
          ? stringMember(objectMember(body, 'payload'), 'plainToken')
          : undefined;
      return plainToken !== undefined && token(plainToken) ? { kind: 'zoom_url_validation', scheme, plainToken } : undefined;
    }
    case 'discord': {
      const type = body ? numberMember(body, 'type') : undefined;
      if (type === 0) return { kind: 'discord_webhook_ping', scheme };
      // Interactions' PING is type 1; a webhook event is type 1 too, with its `event`.
      return type === 1 && body && !Object.prototype.hasOwnProperty.call(body, 'event') ? { kind: 'discord_ping', scheme } : undefined;
    }
    case 'twitch': {
      if (headers.twitchMessageType !== TWITCH_VERIFICATION) return undefined;
      const challenge = body ? stringMember(body, 'challenge') : undefined;
      return challenge !== undefined && token(challenge) ? { kind: 'twitch_callback_verification', scheme, challenge } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Whether a signed request is in a handshake's form, whatever its signature (what a refused one is
 * recorded as): read from its headers and its body alone, so it costs the same whatever the endpoint.
 */
export function looksLikeHandshake(scheme: SignedScheme, headers: SignedRequestHeaders, body: Buffer): boolean {
  if (scheme === 'twitch') return headers.twitchMessageType === TWITCH_VERIFICATION;
  if (scheme !== 'slack' && scheme !== 'zoom' && scheme !== 'discord') return false;
  try {
    return signedHandshakeOf(scheme, headers, JSON.parse(body.toString('utf8'))) !== undefined;
  } catch {
    return false;
  }
}

function token(value: string): boolean {
  return value.length > 0 && value.length <= MAX_HANDSHAKE_TOKEN_CHARS;
}

/** A small integer member, plain or lossless-json. */
function numberMember(body: Record<string, unknown>, name: string): number | undefined {
  const value = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  if (typeof value === 'number') return value;
  return isLosslessNumber(value) ? Number(value.toString()) : undefined;
}
