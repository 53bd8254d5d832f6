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
  /** Shopify: `X-Shopify-Hmac-Sha256`; `X-Shopify-Event-Id`, `X-Shopify-Webhook-Id` and `X-Shopify-Topic` (none signed). */
  readonly shopifyHmacSha256?: string | undefined;
  readonly shopifyEventId?: string | undefined;
  readonly shopifyWebhookId?: string | undefined;
  readonly shopifyTopic?: string | undefined;
  /** GitLab: `X-Gitlab-Token`; `Idempotency-Key` (GitLab 17.4 and later, the same on every retry) and `X-Gitlab-Event-UUID`. */
  readonly gitlabToken?: string | undefined;
  readonly gitlabIdempotencyKey?: string | undefined;
  readonly gitlabEventUuid?: string | undefined;
  /** Linear: `Linear-Signature`; `Linear-Delivery` (not signed). */
  readonly linearSignature?: string | undefined;
  readonly linearDelivery?: string | undefined;
  /** Sentry: `Sentry-Hook-Signature`; `Request-ID` and `Sentry-Hook-Resource` (not signed). */
  readonly sentryHookSignature?: string | undefined;
  readonly sentryRequestId?: string | undefined;
  readonly sentryHookResource?: string | undefined;
  /** PagerDuty: `X-PagerDuty-Signature` (its event's id and type are in the signed body). */
  readonly pagerdutySignature?: string | undefined;
  /** Zendesk: `X-Zendesk-Webhook-Signature`; `X-Zendesk-Webhook-Invocation-Id` (not signed). */
  readonly zendeskWebhookSignature?: string | undefined;
  readonly zendeskInvocationId?: string | undefined;
  /** Svix: `svix-signature`; `svix-id` (signed with the body). */
  readonly svixSignature?: string | undefined;
  readonly svixId?: string | undefined;
}

/**
 * Each signed scheme and the header whose presence claims it, in the order they are looked at: the
 * first present wins (a request carrying several is judged as the first, and refused unless it is
 * that scheme's). Each provider's own signature header, none shared with another scheme.
 */
const CLAIMS: readonly (readonly [SignedScheme, (headers: SignedRequestHeaders) => string | undefined])[] = [
  ['standard_webhooks', (headers) => headers.webhookSignature],
  ['github', (headers) => headers.hubSignature256],
  ['stripe', (headers) => headers.stripeSignature],
  ['shopify', (headers) => headers.shopifyHmacSha256],
  ['gitlab', (headers) => headers.gitlabToken],
  ['linear', (headers) => headers.linearSignature],
  ['sentry', (headers) => headers.sentryHookSignature],
  ['pagerduty', (headers) => headers.pagerdutySignature],
  ['zendesk', (headers) => headers.zendeskWebhookSignature],
  ['svix', (headers) => headers.svixSignature],
];

/**
 * The scheme a request claims, from its own headers alone — never from what the endpoint is — so
 * the work done before answering depends only on the request: a signature header means the body is
 * read (bounded) and a signature checked, against a decoy secret when the endpoint is unknown,
 * disabled or verifies another scheme; no signature header means the bearer check, as the spec has it.
 */
export function claimedScheme(headers: SignedRequestHeaders): VerificationScheme {
  for (const [scheme, claim] of CLAIMS) if (claim(headers) !== undefined) return scheme;
  return 'bearer';
}

/** An event type as providers name them (`push`, `payment_intent.succeeded`, `user.created`). */
const EVENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$/;

export interface SignedDeliveryFacts {
  /**
   * The provider's delivery id, recorded as the delivery's idempotency key: a retry of the same delivery
   * replays instead of making a second run. Where the provider signs neither it nor a timestamp
   * (GitHub, Shopify, Sentry), repeats are recognised by the signature instead (replayGuard).
   */
  readonly idempotencyKey: string;
  readonly sender: DeliverySender;
}

type Body = Record<string, unknown>;

/** Where a scheme's delivery id and event type are read, and the words that name them in a refusal. */
interface FactSources {
  readonly deliveryId: (headers: SignedRequestHeaders, body: Body) => string | undefined;
  readonly deliveryIdName: string;
  readonly eventType: (headers: SignedRequestHeaders, body: Body) => string | undefined;
  readonly eventTypeName: string;
  /**
   * An event type outside the alphabet is recorded as none instead of refused: Zendesk's trigger
   * and automation webhooks send a body the operator wrote, whose `type` may be anything.
   */
  readonly lenientEventType?: boolean;
}

const FACTS: Readonly<Record<SignedScheme, FactSources>> = {
  standard_webhooks: {
    deliveryId: (headers) => headers.webhookId,
    deliveryIdName: 'webhook-id',
    eventType: (_headers, body) => stringMember(body, 'type'),
    eventTypeName: "the payload's type",
  },
  github: {
    deliveryId: (headers) => headers.githubDelivery,
    deliveryIdName: 'X-GitHub-Delivery',
    eventType: (headers) => headers.githubEvent,
    eventTypeName: 'X-GitHub-Event',
  },
  stripe: {
    deliveryId: (_headers, body) => stringMember(body, 'id'),
    deliveryIdName: "the Stripe event's id",
    eventType: (_headers, body) => stringMember(body, 'type'),
    eventTypeName: "the payload's type",
  },
  shopify: {
    deliveryId: (headers) => headers.shopifyEventId ?? headers.shopifyWebhookId,
    deliveryIdName: 'X-Shopify-Event-Id (or X-Shopify-Webhook-Id)',
    eventType: (headers) => headers.shopifyTopic,
    eventTypeName: 'X-Shopify-Topic',
  },
  gitlab: {
    deliveryId: (headers) => headers.gitlabIdempotencyKey ?? headers.gitlabEventUuid,
    deliveryIdName: 'Idempotency-Key (or X-Gitlab-Event-UUID)',
    eventType: (_headers, body) => stringMember(body, 'object_kind') ?? stringMember(body, 'event_name'),
    eventTypeName: "the payload's object_kind",
  },
  linear: {
    deliveryId: (headers) => headers.linearDelivery,
    deliveryIdName: 'Linear-Delivery',
    eventType: (_headers, body) => stringMember(body, 'type'),
    eventTypeName: "the payload's type",
  },
  sentry: {
    deliveryId: (headers) => headers.sentryRequestId,
    deliveryIdName: 'Request-ID',
    eventType: (headers) => headers.sentryHookResource,
    eventTypeName: 'Sentry-Hook-Resource',
  },
  pagerduty: {
    deliveryId: (_headers, body) => stringMember(objectMember(body, 'event'), 'id'),
    deliveryIdName: "the PagerDuty event's id (event.id)",
    eventType: (_headers, body) => stringMember(objectMember(body, 'event'), 'event_type'),
    eventTypeName: "the event's event_type",
  },
  zendesk: {
    deliveryId: (headers) => headers.zendeskInvocationId,
    deliveryIdName: 'X-Zendesk-Webhook-Invocation-Id',
    eventType: (_headers, body) => stringMember(body, 'type'),
    eventTypeName: "the payload's type",
    lenientEventType: true,
  },
  svix: {
    deliveryId: (headers) => headers.svixId,
    deliveryIdName: 'svix-id',
    eventType: (_headers, body) => stringMember(body, 'type'),
    eventTypeName: "the payload's type",
  },
};

/**
 * The provider's delivery id and event type of a verified delivery (FACTS: `webhook-id` and the
 * payload's `type` for Standard Webhooks, `X-GitHub-Delivery` and `X-GitHub-Event` for GitHub, the
 * event's `id` and `type` for Stripe, and so on). `json` is the parsed body (undefined for a text body).
 */
export function signedDeliveryFacts(scheme: SignedScheme, headers: SignedRequestHeaders, json: unknown): SignedDeliveryFacts | Rejection {
  const body = isPlainObject(json) ? json : {};
  const sources = FACTS[scheme];
  const key = parseIdempotencyKey(sources.deliveryId(headers, body) ?? '');
  if (typeof key !== 'string') {
    return reject(
      'invalid_delivery_id',
      `${sources.deliveryIdName} must be 1 to 255 visible ASCII characters: it identifies the delivery across retries`,
    );
  }
  const found = sources.eventType(headers, body);
  const usable = found === undefined || EVENT_TYPE.test(found);
  if (!usable && !sources.lenientEventType) {
    return reject(
      'invalid_event_type',
      `${sources.eventTypeName} must be 1 to 128 letters, digits and _ . : / - (starting with a letter or digit)`,
    );
  }
  return { idempotencyKey: key, sender: { scheme, eventType: usable ? (found ?? null) : null } };
}

function stringMember(body: Body, name: string): string | undefined {
  const value = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function objectMember(body: Body, name: string): Body {
  const value = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  return isPlainObject(value) ? value : {};
}

function isPlainObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
