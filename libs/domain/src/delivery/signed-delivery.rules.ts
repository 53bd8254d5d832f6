import type { DeliverySender, SignedScheme, VerificationScheme } from '@wts/contracts';
import { reject, type Rejection } from '../shared/decision';
import { firstOf, isPlainObject, objectMember, stringMember } from './json-members';
import { parseIdempotencyKey } from './request-headers.rules';

/** The headers that say which scheme a request claims and which delivery it is. */
export interface SignedRequestHeaders {
  readonly webhookSignature?: string | undefined;
  readonly hubSignature256?: string | undefined;
  readonly stripeSignature?: string | undefined;
  /** Standard Webhooks' message id (signed with the body). */
  readonly webhookId?: string | undefined;
  /** GitHub's delivery GUID and event name (not covered by its signature). */
  readonly githubDelivery?: string | undefined;
  readonly githubEvent?: string | undefined;
  /** Slack: `X-Slack-Signature` (`v0=<hex>`). */
  readonly slackSignature?: string | undefined;
  /** Zoom: `x-zm-signature` (`v0=<hex>`). */
  readonly zoomSignature?: string | undefined;
  /** Discord: `X-Signature-Ed25519` (hex). */
  readonly discordSignature?: string | undefined;
  /** Twitch EventSub: `Twitch-Eventsub-Message-Signature`, the message id (signed) and type. */
  readonly twitchSignature?: string | undefined;
  readonly twitchMessageId?: string | undefined;
  readonly twitchMessageType?: string | undefined;
  /** X (Twitter): `x-twitter-webhooks-signature` (`sha256=<base64>`). */
  readonly xSignature?: string | undefined;
}

/**
 * The scheme a request claims, from its own headers alone — never from what the endpoint is — so
 * the work done before answering depends only on the request: a signature header means the body is
 * read (bounded) and a signature checked, against a decoy secret when the endpoint is unknown,
 * disabled or verifies another scheme; an `Authorization` header means the bearer check, as the spec
 * has it. A request with neither carries no proof but in its body: Microsoft Graph's notifications
 * (their `clientState`), checked the signed way. `X-Hub-Signature-256` is GitHub's and Meta's: a
 * request with `X-GitHub-Event` or `X-GitHub-Delivery` (GitHub sends both, always) is GitHub's,
 * one without is Meta's.
 */
export function claimedScheme(headers: SignedRequestHeaders, authorization?: string): VerificationScheme {
  if (headers.webhookSignature !== undefined) return 'standard_webhooks';
  if (headers.hubSignature256 !== undefined) {
    return headers.githubEvent !== undefined || headers.githubDelivery !== undefined ? 'github' : 'meta';
  }
  if (headers.stripeSignature !== undefined) return 'stripe';
  if (headers.slackSignature !== undefined) return 'slack';
  if (headers.zoomSignature !== undefined) return 'zoom';
  if (headers.discordSignature !== undefined) return 'discord';
  if (headers.twitchSignature !== undefined) return 'twitch';
  if (headers.xSignature !== undefined) return 'x';
  return authorization === undefined ? 'microsoft_graph' : 'bearer';
}

/**
 * The one refusal a request claiming `scheme` gets, whatever its cause: the spec's 404 — except for
 * Discord, whose documentation asks for a 401 on a bad signature (and whose portal checks it): a
 * Discord-signed request is refused with one 401 for every cause, so that answer tells no more than
 * the 404 does. It depends on the request's headers alone, never on the endpoint.
 */
export function refusalCodeOf(scheme: VerificationScheme): 'webhook_not_found' | 'webhook_unauthorized' {
  return scheme === 'discord' ? 'webhook_unauthorized' : 'webhook_not_found';
}

/** An event type as providers name them (`push`, `payment_intent.succeeded`, `user.created`). */
const EVENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$/;

export interface SignedDeliveryFacts {
  /**
   * The provider's delivery id, recorded as the delivery's idempotency key: a retry of the same delivery
   * replays instead of making a second run. GitHub's is not signed: its repeats are recognised by the
   * signature (replayGuard). Undefined for the providers that send none (Zoom, Discord, X, Meta,
   * Microsoft Graph): their repeats are recognised by the signed body (replayGuard).
   */
  readonly idempotencyKey: string | undefined;
  readonly sender: DeliverySender;
}

/** Where a scheme's delivery id is, when its provider sends one (and how the refusal names it). */
type DeliveryId = readonly [string | undefined, string] | 'none';

/**
 * The provider's delivery id and event type of a verified delivery: `webhook-id` and the payload's
 * `type` (Standard Webhooks), `X-GitHub-Delivery` and `X-GitHub-Event` (GitHub), the event's `id`
 * and `type` (Stripe), `event_id` and the inner `event.type` (Slack), `Twitch-Eventsub-Message-Id`
 * and `subscription.type` (Twitch); Zoom's `event`, Discord's `event.type`, X's `…_events` member,
 * Meta's `object`, Graph's `changeType` (or `lifecycleEvent`), with no delivery id. `json` is the
 * parsed body (undefined for a text body).
 */
export function signedDeliveryFacts(scheme: SignedScheme, headers: SignedRequestHeaders, json: unknown): SignedDeliveryFacts | Rejection {
  const body = isPlainObject(json) ? json : {};
  const id = deliveryIdOf(scheme, headers, body);
  let key: string | undefined;
  if (id !== 'none') {
    const parsed = parseIdempotencyKey(id[0] ?? '');
    if (typeof parsed !== 'string') {
      return reject('invalid_delivery_id', `${id[1]} must be 1 to 255 visible ASCII characters: it identifies the delivery across retries`);
    }
    key = parsed;
  }
  const eventType = eventTypeOf(scheme, headers, body);
  if (eventType !== undefined && !EVENT_TYPE.test(eventType)) {
    return reject(
      'invalid_event_type',
      `${scheme === 'github' ? 'X-GitHub-Event' : "the payload's event type"} must be 1 to 128 letters, digits and _ . : / - (starting with a letter or digit)`,
    );
  }
  return { idempotencyKey: key, sender: { scheme, eventType: eventType ?? null } };
}

function deliveryIdOf(scheme: SignedScheme, headers: SignedRequestHeaders, body: Record<string, unknown>): DeliveryId {
  switch (scheme) {
    case 'standard_webhooks':
      return [headers.webhookId, 'webhook-id'];
    case 'github':
      return [headers.githubDelivery, 'X-GitHub-Delivery'];
    case 'stripe':
      return [stringMember(body, 'id'), "the Stripe event's id"];
    case 'slack':
      return [stringMember(body, 'event_id'), "the Slack event's event_id"];
    case 'twitch':
      return [headers.twitchMessageId, 'Twitch-Eventsub-Message-Id'];
    case 'zoom':
    case 'discord':
    case 'x':
    case 'meta':
    case 'microsoft_graph':
      return 'none';
  }
}

function eventTypeOf(scheme: SignedScheme, headers: SignedRequestHeaders, body: Record<string, unknown>): string | undefined {
  switch (scheme) {
    case 'github':
      return headers.githubEvent;
    case 'standard_webhooks':
    case 'stripe':
      return stringMember(body, 'type');
    case 'slack':
      return stringMember(objectMember(body, 'event'), 'type') ?? stringMember(body, 'type');
    case 'zoom':
      return stringMember(body, 'event');
    case 'discord':
      return stringMember(objectMember(body, 'event'), 'type');
    case 'twitch':
      return stringMember(objectMember(body, 'subscription'), 'type');
    case 'x':
      return Object.keys(body).find((name) => name.endsWith('_events'));
    case 'meta':
      return stringMember(body, 'object');
    case 'microsoft_graph': {
      const first = firstOf(body['value']);
      return stringMember(first, 'lifecycleEvent') ?? stringMember(first, 'changeType');
    }
  }
}
