import type { Event } from './event.contract';
import type { SignedScheme, TriggerAccount } from './webhook.events';

/**
 * The untrusted payload as received. JSON payloads are kept as JSON text (numbers keep every
 * digit); text payloads as the decoded string.
 */
export type PayloadRecord = { readonly format: 'json'; readonly json: string } | { readonly format: 'text'; readonly text: string };

/**
 * Who signed a signed webhook's delivery: the scheme its signature was verified with and the
 * provider's event type (`X-GitHub-Event`, a Stripe event's `type`, a Standard Webhooks payload's
 * `type`) when it had one. The provider's delivery id is the delivery's idempotency key (a GitHub
 * delivery's repeats are recognised by its signature instead: see replayGuard in @wts/domain).
 */
export interface DeliverySender {
  readonly scheme: SignedScheme;
  readonly eventType: string | null;
}

export type DeliveryAccepted = Event<
  'DeliveryAccepted',
  {
    readonly deliveryId: string;
    readonly webhookId: string;
    readonly routineId: string;
    /** Fixed at acceptance so callers can correlate before the run exists. */
    readonly runId: string;
    readonly triggerAccount: TriggerAccount;
    /**
     * The payload itself is not in the event: it is kept apart, under the delivery id, in the
     * store's payload store (so it can expire or be erased without rewriting history).
     */
    readonly payloadFormat: PayloadRecord['format'];
    /** The payload's size as UTF-8 bytes. */
    readonly payloadBytes: number;
    /**
     * When the payload is removed as expired (ISO 8601; from the webhook's retention or the default
     * at acceptance). Null for a delivery written before payloads were kept apart (schema version
     * 1): its payload is inside the event (`legacyPayload`) and is never removed.
     */
    readonly payloadExpiresAt: string | null;
    /** Only when read from a schema version 1 event, which carried the payload inline (see upcastEvent). */
    readonly legacyPayload?: PayloadRecord;
    /** The media type as received, lower-cased, e.g. "application/json". */
    readonly contentType: string;
    readonly idempotencyKey: string | null;
    /**
     * Detects key reuse. With an idempotency key and a JSON body: `jcs:` + SHA-256 (hex) over the
     * body's RFC 8785 canonical form; otherwise SHA-256 (hex) over the body bytes, media type and
     * account header.
     */
    readonly requestDigest: string;
    readonly receivedAt: string;
    /** Present when a signature was verified (a signed webhook); absent: the spec's bearer secret. */
    readonly sender?: DeliverySender;
    /**
     * Present when the webhook had a filter: it matched, or it failed to evaluate (the run is made:
     * fail open) and why — CEL's kind of error and where in the expression, never payload text.
     */
    readonly filter?: FilterVerdict;
  }
>;

/** A filter's outcome on an accepted delivery. */
export type FilterVerdict = { readonly outcome: 'matched' } | { readonly outcome: 'error'; readonly error: string };

/**
 * A delivery the webhook's filter turned away (false): answered `200 {"status": "filtered"}`, no
 * run, no payload kept — only what identifies it. On `delivery-<id>` like an accepted delivery;
 * never relayed (there is nothing to run) and never dispatched.
 */
export type DeliveryFiltered = Event<
  'DeliveryFiltered',
  {
    readonly deliveryId: string;
    readonly webhookId: string;
    readonly routineId: string;
    /** The sender's event type as the filter saw it ("" when none). */
    readonly eventType: string;
    readonly contentType: string;
    readonly payloadBytes: number;
    readonly requestDigest: string;
    readonly receivedAt: string;
    /** SHA-256 (hex) of the filter that said false: which version of the rule decided. */
    readonly filterDigest: string;
  }
>;

export type DeliveryEvent = DeliveryAccepted;

/**
 * Written to `idempotency_key-<index id>` (one stream per webhook and key) each time the key's
 * previous delivery fell out of the retention window: the event at revision n announces
 * generation n + 1. A lookup starts at the newest generation (the stream's head), so its cost does
 * not grow with how many windows the key was used in. Never relayed, never projected.
 */
export type IdempotencyGenerationAdvanced = Event<
  'IdempotencyGenerationAdvanced',
  {
    readonly webhookId: string;
    /** The generation now in use: its delivery id is deliveryIdForIdempotencyKey(webhook, key, generation). */
    readonly generation: number;
  }
>;
