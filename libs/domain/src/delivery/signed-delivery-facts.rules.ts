import type { DeliverySender, SignedScheme } from '@wts/contracts';
import { reject, type Rejection } from '../shared/decision';
import { firstOf, isPlainObject, objectMember, stringMember } from './json-members';
import { parseIdempotencyKey } from './request-headers.rules';
import type { SignedRequestHeaders } from './signed-delivery.rules';

/** An event type as providers name them (`push`, `payment_intent.succeeded`, `user.created`). */
const EVENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$/;

export interface SignedDeliveryFacts {
  /**
   * The provider's delivery id, recorded as the delivery's idempotency key: a retry of the same delivery
   * replays instead of making a second run. Where the provider signs neither it nor a timestamp
   * (GitHub, Shopify, Sentry), repeats are recognised by the signature instead (replayGuard).
   * Undefined for the providers that send none (Zoom, Discord, X, Meta, Microsoft Graph): their
   * repeats are recognised by the signed body (replayGuard).
   */
  readonly idempotencyKey: string | undefined;
  readonly sender: DeliverySender;
}

type Body = Record<string, unknown>;

/** Where a scheme's delivery id and event type are read, and the words that name them in a refusal. */
interface FactSources {
  /** Absent for the providers that send no delivery id. */
  readonly deliveryId?: (headers: SignedRequestHeaders, body: Body) => string | undefined;
  readonly deliveryIdName?: string;
  readonly eventType: (headers: SignedRequestHeaders, body: Body) => string | undefined;
  readonly eventTypeName: string;
  /**
   * An event type outside the alphabet is recorded as none instead of refused: Zendesk's trigger
   * and automation webhooks send a body the operator wrote, whose `type` may be anything.
   */
  readonly lenientEventType?: boolean;
}

const PAYLOAD_TYPE = {
  eventType: (_headers: SignedRequestHeaders, body: Body) => stringMember(body, 'type'),
  eventTypeName: "the payload's type",
};

/** Both facts read from a header of their own each, named by the header's name. */
function headerFacts(
  deliveryId: keyof SignedRequestHeaders,
  deliveryIdName: string,
  eventType: keyof SignedRequestHeaders,
  eventTypeName: string,
): FactSources {
  return { deliveryId: (headers) => headers[deliveryId], deliveryIdName, eventType: (headers) => headers[eventType], eventTypeName };
}

const FACTS: Readonly<Record<SignedScheme, FactSources>> = {
  standard_webhooks: { deliveryId: (headers) => headers.webhookId, deliveryIdName: 'webhook-id', ...PAYLOAD_TYPE },
  github: headerFacts('githubDelivery', 'X-GitHub-Delivery', 'githubEvent', 'X-GitHub-Event'),
  stripe: { deliveryId: (_headers, body) => stringMember(body, 'id'), deliveryIdName: "the Stripe event's id", ...PAYLOAD_TYPE },
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
  linear: { deliveryId: (headers) => headers.linearDelivery, deliveryIdName: 'Linear-Delivery', ...PAYLOAD_TYPE },
  sentry: headerFacts('sentryRequestId', 'Request-ID', 'sentryHookResource', 'Sentry-Hook-Resource'),
  pagerduty: {
    deliveryId: (_headers, body) => stringMember(objectMember(body, 'event'), 'id'),
    deliveryIdName: "the PagerDuty event's id (event.id)",
    eventType: (_headers, body) => stringMember(objectMember(body, 'event'), 'event_type'),
    eventTypeName: "the event's event_type",
  },
  zendesk: {
    deliveryId: (headers) => headers.zendeskInvocationId,
    deliveryIdName: 'X-Zendesk-Webhook-Invocation-Id',
    ...PAYLOAD_TYPE,
    lenientEventType: true,
  },
  svix: { deliveryId: (headers) => headers.svixId, deliveryIdName: 'svix-id', ...PAYLOAD_TYPE },
  slack: {
    deliveryId: (_headers, body) => stringMember(body, 'event_id'),
    deliveryIdName: "the Slack event's event_id",
    eventType: (_headers, body) => stringMember(objectMember(body, 'event'), 'type') ?? stringMember(body, 'type'),
    eventTypeName: "the payload's event type",
  },
  zoom: { eventType: (_headers, body) => stringMember(body, 'event'), eventTypeName: "the payload's event" },
  discord: { eventType: (_headers, body) => stringMember(objectMember(body, 'event'), 'type'), eventTypeName: "the payload's event.type" },
  twitch: {
    deliveryId: (headers) => headers.twitchMessageId,
    deliveryIdName: 'Twitch-Eventsub-Message-Id',
    eventType: (_headers, body) => stringMember(objectMember(body, 'subscription'), 'type'),
    eventTypeName: "the payload's subscription.type",
  },
  x: {
    eventType: (_headers, body) => Object.keys(body).find((name) => name.endsWith('_events')),
    eventTypeName: "the payload's …_events member",
  },
  meta: { eventType: (_headers, body) => stringMember(body, 'object'), eventTypeName: "the payload's object" },
  microsoft_graph: {
    eventType: (_headers, body) => {
      const first = firstOf(body['value']);
      return stringMember(first, 'lifecycleEvent') ?? stringMember(first, 'changeType');
    },
    eventTypeName: "the notification's changeType",
  },
};

/**
 * The provider's delivery id and event type of a verified delivery (FACTS: `webhook-id` and the
 * payload's `type` for Standard Webhooks, `X-GitHub-Delivery` and `X-GitHub-Event` for GitHub, the
 * event's `id` and `type` for Stripe, `event_id` and the inner `event.type` for Slack, and so on;
 * Zoom, Discord, X, Meta and Graph send an event type and no delivery id). `json` is the parsed body
 * (undefined for a text body).
 */
export function signedDeliveryFacts(scheme: SignedScheme, headers: SignedRequestHeaders, json: unknown): SignedDeliveryFacts | Rejection {
  const body = isPlainObject(json) ? json : {};
  const sources = FACTS[scheme];
  let key: string | undefined;
  if (sources.deliveryId !== undefined) {
    const parsed = parseIdempotencyKey(sources.deliveryId(headers, body) ?? '');
    if (typeof parsed !== 'string') {
      return reject(
        'invalid_delivery_id',
        `${sources.deliveryIdName ?? 'the delivery id'} must be 1 to 255 visible ASCII characters: it identifies the delivery across retries`,
      );
    }
    key = parsed;
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
