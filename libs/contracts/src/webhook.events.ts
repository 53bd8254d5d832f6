import type { Event } from './event.contract';

/** The account a run is triggered for, with the address that selected it (own email or alias). */
export interface TriggerAccount {
  readonly accountId: string;
  readonly email: string;
}

/**
 * How a webhook's deliveries prove who sent them: the spec's bearer secret, or a provider's
 * signature (or, for Microsoft Graph, the `clientState` each notification carries).
 */
export type SignedScheme =
  | 'standard_webhooks'
  | 'github'
  | 'stripe'
  | 'shopify'
  | 'gitlab'
  | 'linear'
  | 'sentry'
  | 'pagerduty'
  | 'zendesk'
  | 'svix'
  // Providers with a URL-verification handshake (docs/signed-senders.md, "Handshakes").
  | 'slack'
  | 'zoom'
  | 'discord'
  | 'twitch'
  | 'x'
  | 'meta'
  | 'microsoft_graph';
export type VerificationScheme = 'bearer' | SignedScheme;
export const SIGNED_SCHEMES: readonly SignedScheme[] = [
  'standard_webhooks',
  'github',
  'stripe',
  'shopify',
  'gitlab',
  'linear',
  'sentry',
  'pagerduty',
  'zendesk',
  'svix',
  'slack',
  'zoom',
  'discord',
  'twitch',
  'x',
  'meta',
  'microsoft_graph',
];
export const VERIFICATION_SCHEMES: readonly VerificationScheme[] = ['bearer', ...SIGNED_SCHEMES];

/**
 * A signed webhook's verification: its scheme and which sealed signing secret (on the webhook's
 * `signing_secret-` stream, never relayed nor projected) is current. Only its id travels here.
 */
export interface SignedVerification {
  readonly scheme: SignedScheme;
  readonly secretId: string;
}

export type WebhookEnabled = Event<
  'WebhookEnabled',
  {
    readonly webhookId: string;
    readonly routineId: string;
    /**
     * Bearer webhooks: SHA-256 of the secret, hex. The secret itself never enters an event.
     * Absent for a signed webhook (see `verification`).
     */
    readonly secretDigest?: string;
    /** Present for a signed webhook; absent: the spec's bearer secret. */
    readonly verification?: SignedVerification;
    readonly defaultAccount: TriggerAccount;
    readonly accountOverrideAllowed: boolean;
    /** How many days its deliveries' payloads are kept; absent: PAYLOAD_RETENTION_SECONDS. */
    readonly payloadRetentionDays?: number;
    readonly enabledAt: string;
  }
>;

/** The webhook's credential replaced: a new bearer digest, or a new signing secret's id. */
export type SecretRotated = Event<
  'SecretRotated',
  {
    readonly webhookId: string;
    readonly secretDigest?: string;
    readonly verification?: SignedVerification;
    readonly rotatedAt: string;
  }
>;

export type WebhookDisabled = Event<'WebhookDisabled', { readonly webhookId: string; readonly disabledAt: string }>;

export type WebhookBlocked = Event<'WebhookBlocked', { readonly webhookId: string; readonly reason: string; readonly blockedAt: string }>;

export type WebhookUnblocked = Event<'WebhookUnblocked', { readonly webhookId: string; readonly unblockedAt: string }>;

/**
 * Runs paused: deliveries accepted after this event (in $all order) are accepted and stored as
 * usual, but the dispatcher creates no run for them until the hold is released. `heldBy` is the
 * actor's display name (the page shows who held it); `releaseAt`, when set, is the time after which
 * the service releases the hold by itself.
 */
export type WebhookHeld = Event<
  'WebhookHeld',
  { readonly webhookId: string; readonly heldAt: string; readonly heldBy: string; readonly releaseAt: string | null }
>;

/**
 * The hold lifted: every delivery accepted while held is judged as things stand at this event (the
 * routine, the safety block, the trigger account) and gets its run, in acceptance order, or is
 * parked with the reason the routine as it now stands refuses it; later ones run at once.
 * `expired`: released by the service at the hold's `releaseAt`, not by an operator. `discard`: the
 * operator chose to discard what the hold kept — each held delivery is parked
 * (`discarded_by_operator`, re-dispatchable) and none runs (absent in events written before it
 * existed: false). `heldDeliveries`: how many were waiting when the operator released (the count
 * the page showed; absent for an expiry and in older events).
 */
export type WebhookReleased = Event<
  'WebhookReleased',
  {
    readonly webhookId: string;
    readonly releasedAt: string;
    readonly releasedBy: string;
    readonly expired: boolean;
    readonly discard?: boolean;
    readonly heldDeliveries?: number;
  }
>;

/**
 * The webhook's payload retention set (days) or put back to the service's default (null:
 * PAYLOAD_RETENTION_SECONDS). A payload's expiry is fixed when its delivery is accepted, so this
 * applies to deliveries accepted after it; older payloads keep theirs (an erasure removes them sooner).
 */
export type WebhookRetentionChanged = Event<
  'WebhookRetentionChanged',
  { readonly webhookId: string; readonly payloadRetentionDays: number | null; readonly changedAt: string }
>;

/**
 * The webhook's filter set, or removed (null): a CEL expression over `event_type`, `headers` and
 * `body` (docs/routine-rules.md). Deliveries accepted after it (in $all order) are judged by it;
 * one for which it is false is answered `filtered` and makes no run.
 */
export type WebhookFilterChanged = Event<
  'WebhookFilterChanged',
  { readonly webhookId: string; readonly filter: string | null; readonly changedAt: string }
>;

/**
 * The webhook's payload schema set (a JSON Schema 2020-12, as the JSON text saved), or removed
 * (null). A JSON payload accepted after it must conform, else 400 `payload_schema_mismatch`.
 */
export type WebhookPayloadSchemaChanged = Event<
  'WebhookPayloadSchemaChanged',
  { readonly webhookId: string; readonly payloadSchema: string | null; readonly changedAt: string }
>;

/**
 * Claims the one webhook id of a routine, on stream `webhook_slot-<routine id>` appended with
 * "stream must not exist": concurrent first enables (on any replica) agree on one id.
 */
export type WebhookIdAssigned = Event<
  'WebhookIdAssigned',
  { readonly routineId: string; readonly webhookId: string; readonly assignedAt: string }
>;

export type WebhookEvent =
  | WebhookEnabled
  | SecretRotated
  | WebhookDisabled
  | WebhookBlocked
  | WebhookUnblocked
  | WebhookHeld
  | WebhookReleased
  | WebhookRetentionChanged
  | WebhookFilterChanged
  | WebhookPayloadSchemaChanged;

/** Every type of a `webhook-` stream's events (what a webhook's state folds, and what is relayed). */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEvent['type'][] = [
  'WebhookEnabled',
  'SecretRotated',
  'WebhookDisabled',
  'WebhookBlocked',
  'WebhookUnblocked',
  'WebhookHeld',
  'WebhookReleased',
  'WebhookRetentionChanged',
  'WebhookFilterChanged',
  'WebhookPayloadSchemaChanged',
];
const WEBHOOK_EVENT_TYPE_SET: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(type: string): type is WebhookEvent['type'] {
  return WEBHOOK_EVENT_TYPE_SET.has(type);
}

/**
 * A signing secret, sealed with AES-256-GCM: `keyId` names the encryption key (a fingerprint, never
 * the key), the rest is base64url. The additional data binds it to its webhook and secret id.
 */
export interface SealedSecret {
  readonly keyId: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

/**
 * On `signing_secret-<webhook id>`, appended before the webhook event that names `secretId`. Only
 * the ingress reads this category: no relay, projection or listing does.
 */
export type SigningSecretSealed = Event<
  'SigningSecretSealed',
  { readonly webhookId: string; readonly secretId: string; readonly sealed: SealedSecret; readonly sealedAt: string }
>;

/** The same secret sealed again under another key (rotate-encryption-key). */
export type SigningSecretResealed = Event<
  'SigningSecretResealed',
  { readonly webhookId: string; readonly secretId: string; readonly sealed: SealedSecret; readonly resealedAt: string }
>;

export type SigningSecretEvent = SigningSecretSealed | SigningSecretResealed;
