import type { SignedScheme, VerificationScheme } from '@wts/contracts';

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
 * Each signed scheme and the headers whose presence claims it, in the order they are looked at: the
 * first row that matches wins (a request carrying several signature headers is judged as the first,
 * and refused unless it is that scheme's). Each provider's own signature header, none shared with
 * another scheme — but one: `X-Hub-Signature-256` is GitHub's and Meta's. GitHub sends
 * `X-GitHub-Event` and `X-GitHub-Delivery` with every delivery, Meta neither, so the `github` row
 * (the header and either of those) comes first and the `meta` row (the header alone) takes the rest.
 */
const CLAIMS: readonly (readonly [SignedScheme, (headers: SignedRequestHeaders) => boolean])[] = [
  ['standard_webhooks', (headers) => headers.webhookSignature !== undefined],
  [
    'github',
    (headers) => headers.hubSignature256 !== undefined && (headers.githubEvent !== undefined || headers.githubDelivery !== undefined),
  ],
  ['meta', (headers) => headers.hubSignature256 !== undefined],
  ['stripe', (headers) => headers.stripeSignature !== undefined],
  ['shopify', (headers) => headers.shopifyHmacSha256 !== undefined],
  ['gitlab', (headers) => headers.gitlabToken !== undefined],
  ['linear', (headers) => headers.linearSignature !== undefined],
  ['sentry', (headers) => headers.sentryHookSignature !== undefined],
  ['pagerduty', (headers) => headers.pagerdutySignature !== undefined],
  ['zendesk', (headers) => headers.zendeskWebhookSignature !== undefined],
  ['svix', (headers) => headers.svixSignature !== undefined],
  ['slack', (headers) => headers.slackSignature !== undefined],
  ['zoom', (headers) => headers.zoomSignature !== undefined],
  ['discord', (headers) => headers.discordSignature !== undefined],
  ['twitch', (headers) => headers.twitchSignature !== undefined],
  ['x', (headers) => headers.xSignature !== undefined],
];

/**
 * The scheme a request claims, from its own headers alone — never from what the endpoint is — so
 * the work done before answering depends only on the request. In this order:
 * 1. a signature header (the first row of CLAIMS that matches) means the body is read (bounded) and
 *    that scheme's signature checked, against a decoy secret when the endpoint is unknown, disabled
 *    or verifies another scheme;
 * 2. otherwise an `Authorization` header means the bearer check, as the spec has it;
 * 3. a request with neither carries no proof but in its body: Microsoft Graph's notifications (their
 *    `clientState`), checked the signed way.
 */
export function claimedScheme(headers: SignedRequestHeaders, authorization?: string): VerificationScheme {
  for (const [scheme, claims] of CLAIMS) if (claims(headers)) return scheme;
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
