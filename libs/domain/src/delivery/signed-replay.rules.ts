import type { SignedScheme } from '@wts/contracts';
import { createHash } from 'node:crypto';
import type { SignedRequestHeaders } from './signed-delivery.rules';

/** How long repeats are recognised: IDEMPOTENCY_RETENTION_SECONDS and WEBHOOK_SIGNATURE_TOLERANCE_SECONDS. */
export interface ReplayWindows {
  readonly idempotencyRetentionMs: number;
  readonly signatureToleranceSeconds: number;
}

/** What a delivery's repeats are recognised by (scoped to its webhook by the store), and for how long. */
export interface ReplayGuard {
  /** A repeat under this key replays the delivery it made; undefined: every request is a new delivery. */
  readonly key: string | undefined;
  /** How long after the first acceptance a repeat replays instead of making a new delivery. */
  readonly windowMs: number;
}

/**
 * The schemes whose provider signs neither its delivery id nor a timestamp — the body only — and
 * their signature header: a delivery of these is recognised by its signature. Ahead of each key:
 * `<scheme>-signature ` and a space, which no idempotency key or provider delivery id may hold
 * (visible ASCII only), so a signature's key is never one a caller could send. GitHub's hex is
 * lower-cased (its check takes lower case only, so this changes nothing, and kept for the keys
 * already written); Shopify's base64 is case-sensitive and taken as sent (its check takes only the
 * one spelling its HMAC has).
 */
const SIGNATURE_KEYED: Partial<Record<SignedScheme, (headers: SignedRequestHeaders) => string | undefined>> = {
  github: (headers) => headers.hubSignature256?.toLowerCase(),
  shopify: (headers) => headers.shopifyHmacSha256,
  sentry: (headers) => headers.sentryHookSignature,
};

/**
 * Ahead of the key of a provider that sends no delivery id: the scheme and a space (no caller's
 * key holds a space), then the SHA-256 of the body (hex).
 */
const BODY_KEY_SUFFIX = '-body ';

/** The providers that send no delivery id: a repeat is the same signed body again. */
const BODY_KEYED: ReadonlySet<SignedScheme> = new Set<SignedScheme>(['zoom', 'discord', 'x', 'meta', 'microsoft_graph']);

/**
 * A repeat is recognised by the idempotency key — the caller's `X-Service-Idempotency-Key`, or the
 * provider's delivery id (signed by Standard Webhooks, Svix, Stripe, PagerDuty, Slack (the event's
 * `event_id`) and Twitch (`Twitch-Eventsub-Message-Id`); not signed by Linear and Zendesk, whose
 * signed timestamp bounds a capture to the tolerance; not signed either by GitLab, whose token
 * proves nothing about the body) — for IDEMPOTENCY_RETENTION_SECONDS. GitHub, Shopify and Sentry
 * sign neither their delivery id nor a timestamp, so a captured delivery sent again under a new
 * delivery id would be a new delivery and run, for ever: such a delivery is recognised by its
 * signature instead (the HMAC of the body under the webhook's secret, which nobody changes without
 * the secret). The same signed body again replays whatever delivery id it carries — the provider's
 * own redelivery as much as a capture — for the idempotency retention and never for less than the
 * signature tolerance. Called only once the signature was verified; the delivery id is still
 * recorded as the delivery's key.
 *
 * Zoom, Discord, X, Meta and Microsoft Graph send no delivery id at all: their deliveries are
 * recognised by the verified body (its SHA-256), so a provider's retry — the same body, signed
 * again with a new timestamp where the provider signs one — replays, as a capture does. Two events
 * whose bodies are byte for byte the same are one delivery (their bodies carry the event's time or
 * ids, so real events differ).
 */
export function replayGuard(
  scheme: SignedScheme | undefined,
  headers: SignedRequestHeaders,
  idempotencyKey: string | undefined,
  windows: ReplayWindows,
  body?: Buffer,
): ReplayGuard {
  const windowMs = Math.max(windows.idempotencyRetentionMs, windows.signatureToleranceSeconds * 1000);
  if (scheme !== undefined && BODY_KEYED.has(scheme) && body !== undefined) {
    return { key: scheme + BODY_KEY_SUFFIX + createHash('sha256').update(body).digest('hex'), windowMs };
  }
  const signature = scheme === undefined ? undefined : SIGNATURE_KEYED[scheme]?.(headers);
  if (scheme === undefined || signature === undefined) return { key: idempotencyKey, windowMs: windows.idempotencyRetentionMs };
  return { key: `${scheme}-signature ${signature}`, windowMs };
}
