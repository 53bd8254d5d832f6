import type { DeliveryAccepted } from '@wts/contracts';

export type IdempotencyVerdict =
  /** The earlier delivery is older than the retention window: the key may be used afresh. */
  | { readonly kind: 'expired' }
  /** A repeat of the same request: answer with the original body, create nothing. */
  | { readonly kind: 'replay'; readonly original: DeliveryAccepted['data'] }
  /** The same key with another request: 422. */
  | { readonly kind: 'reused' };

export function judgeRepeat(
  original: DeliveryAccepted['data'],
  requestDigest: string,
  nowMs: number,
  retentionMs: number,
): IdempotencyVerdict {
  if (nowMs - Date.parse(original.receivedAt) >= retentionMs) return { kind: 'expired' };
  return original.requestDigest === requestDigest ? { kind: 'replay', original } : { kind: 'reused' };
}
