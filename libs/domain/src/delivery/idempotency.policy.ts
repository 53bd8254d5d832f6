import type { DeliveryAccepted } from '@wts/contracts';

export type IdempotencyVerdict =
  /** The earlier delivery is older than the retention window: the key may be used afresh. */
  | { readonly kind: 'expired' }
  /** A repeat of the same request: answer with the original body, create nothing. */
  | { readonly kind: 'replay'; readonly original: DeliveryAccepted['data'] }
  /** The same key with another request: 422. */
  | { readonly kind: 'reused' };

/**
 * A repeat is the same request when the original's stored digest is this request's — or, for a
 * delivery accepted before JSON bodies were compared in canonical form, this request's digest over
 * the bytes (`legacyDigest`), so that it replays exactly as it did before.
 */
export function judgeRepeat(
  original: DeliveryAccepted['data'],
  requestDigest: string,
  nowMs: number,
  retentionMs: number,
  legacyDigest?: string,
): IdempotencyVerdict {
  if (nowMs - Date.parse(original.receivedAt) >= retentionMs) return { kind: 'expired' };
  const same = original.requestDigest === requestDigest || (legacyDigest !== undefined && original.requestDigest === legacyDigest);
  return same ? { kind: 'replay', original } : { kind: 'reused' };
}
