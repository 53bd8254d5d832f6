import type { DeliverySender, SignedScheme, VerificationScheme } from '@wts/contracts';
import { isLosslessNumber } from 'lossless-json';
import { reject, type Rejection } from '../shared/decision';
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
}

/**
 * The scheme a request claims, from its own headers alone — never from what the endpoint is — so
 * the work done before answering depends only on the request: a signature header means the body is
 * read (bounded) and a signature checked, against a decoy secret when the endpoint is unknown,
 * disabled or verifies another scheme; no signature header means the bearer check, as the spec has it.
 */
export function claimedScheme(headers: SignedRequestHeaders): VerificationScheme {
  if (headers.webhookSignature !== undefined) return 'standard_webhooks';
  if (headers.hubSignature256 !== undefined) return 'github';
  if (headers.stripeSignature !== undefined) return 'stripe';
  return 'bearer';
}

/** An event type as providers name them (`push`, `payment_intent.succeeded`, `user.created`). */
const EVENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$/;

export interface SignedDeliveryFacts {
  /**
   * The provider's delivery id, recorded as the delivery's idempotency key: a retry of the same delivery
   * replays instead of making a second run. GitHub's is not signed: its repeats are recognised by the
   * signature (replayGuard).
   */
  readonly idempotencyKey: string;
  readonly sender: DeliverySender;
}

/**
 * The provider's delivery id and event type of a verified delivery: `webhook-id` and the payload's
 * `type` (Standard Webhooks), `X-GitHub-Delivery` and `X-GitHub-Event` (GitHub), the event's `id`
 * and `type` (Stripe). `json` is the parsed body (undefined for a text body).
 */
export function signedDeliveryFacts(scheme: SignedScheme, headers: SignedRequestHeaders, json: unknown): SignedDeliveryFacts | Rejection {
  const body = isPlainObject(json) ? json : {};
  const [deliveryId, source] = deliveryIdOf(scheme, headers, body);
  const key = parseIdempotencyKey(deliveryId ?? '');
  if (typeof key !== 'string') {
    return reject('invalid_delivery_id', `${source} must be 1 to 255 visible ASCII characters: it identifies the delivery across retries`);
  }
  const eventType = scheme === 'github' ? headers.githubEvent : stringMember(body, 'type');
  if (eventType !== undefined && !EVENT_TYPE.test(eventType)) {
    return reject(
      'invalid_event_type',
      `${scheme === 'github' ? 'X-GitHub-Event' : "the payload's type"} must be 1 to 128 letters, digits and _ . : / - (starting with a letter or digit)`,
    );
  }
  return { idempotencyKey: key, sender: { scheme, eventType: eventType ?? null } };
}

function deliveryIdOf(scheme: SignedScheme, headers: SignedRequestHeaders, body: Record<string, unknown>): [string | undefined, string] {
  switch (scheme) {
    case 'standard_webhooks':
      return [headers.webhookId, 'webhook-id'];
    case 'github':
      return [headers.githubDelivery, 'X-GitHub-Delivery'];
    case 'stripe':
      return [stringMember(body, 'id'), "the Stripe event's id"];
  }
}

function stringMember(body: Record<string, unknown>, name: string): string | undefined {
  const value = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
