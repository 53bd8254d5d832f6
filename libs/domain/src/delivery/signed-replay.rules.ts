import type { SignedScheme } from '@wts/contracts';
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
 * A repeat is recognised by the idempotency key — the caller's `X-Service-Idempotency-Key`, or a
 * delivery id the provider signs (Standard Webhooks' `webhook-id`, the Stripe event's `id`) — for
 * IDEMPOTENCY_RETENTION_SECONDS. GitHub signs neither `X-GitHub-Delivery` nor a timestamp, so a
 * captured delivery sent again under a new `X-GitHub-Delivery` would be a new delivery: a GitHub
 * delivery is recognised by its signature instead (`X-Hub-Signature-256`, the HMAC of the body
 * under the webhook's secret, which nobody changes without the secret). The same signed body again
 * replays whatever `X-GitHub-Delivery` it carries — GitHub's own redelivery as much as a capture —
 * for the idempotency retention and never for less than the signature tolerance. Called only once
 * the signature was verified; `X-GitHub-Delivery` is still recorded as the delivery's key.
 */
export function replayGuard(
  scheme: SignedScheme | undefined,
  headers: SignedRequestHeaders,
  idempotencyKey: string | undefined,
  windows: ReplayWindows,
): ReplayGuard {
  const signature = scheme === 'github' ? headers.hubSignature256 : undefined;
  if (signature === undefined) return { key: idempotencyKey, windowMs: windows.idempotencyRetentionMs };
  return {
    key: GITHUB_SIGNATURE_KEY_PREFIX + signature.toLowerCase(),
    windowMs: Math.max(windows.idempotencyRetentionMs, windows.signatureToleranceSeconds * 1000),
  };
}
