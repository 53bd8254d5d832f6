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
 * Ahead of a GitHub key: a space, which no idempotency key or provider delivery id may hold
 * (visible ASCII only), so a signature's key is never one a caller could send.
 */
const GITHUB_SIGNATURE_KEY_PREFIX = 'github-signature ';

/**
 * Ahead of the key of a provider that sends no delivery id: the scheme and a space (no caller's
 * key holds a space), then the SHA-256 of the body (hex).
 */
const BODY_KEY_SUFFIX = '-body ';

/** The providers that send no delivery id: a repeat is the same signed body again. */
const BODY_KEYED: ReadonlySet<SignedScheme> = new Set<SignedScheme>(['zoom', 'discord', 'x', 'meta', 'microsoft_graph']);

/**
 * A repeat is recognised by the idempotency key — the caller's `X-Service-Idempotency-Key`, or a
 * delivery id the provider signs (Standard Webhooks' `webhook-id`, the Stripe event's `id`, the
 * Slack event's `event_id`, Twitch's `Twitch-Eventsub-Message-Id`) — for
 * IDEMPOTENCY_RETENTION_SECONDS. GitHub signs neither `X-GitHub-Delivery` nor a timestamp, so a
 * captured delivery sent again under a new `X-GitHub-Delivery` would be a new delivery: a GitHub
 * delivery is recognised by its signature instead (`X-Hub-Signature-256`, the HMAC of the body
 * under the webhook's secret, which nobody changes without the secret). The same signed body again
 * replays whatever `X-GitHub-Delivery` it carries — GitHub's own redelivery as much as a capture —
 * for the idempotency retention and never for less than the signature tolerance. Called only once
 * the signature was verified; `X-GitHub-Delivery` is still recorded as the delivery's key.
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
  const signature = scheme === 'github' ? headers.hubSignature256 : undefined;
  if (signature === undefined) return { key: idempotencyKey, windowMs: windows.idempotencyRetentionMs };
  return { key: GITHUB_SIGNATURE_KEY_PREFIX + signature.toLowerCase(), windowMs };
}
