import { bytesDigest, requestDigest, type AcceptDelivery, type DigestedRequest } from '@wts/domain';

/**
 * A digest is only ever compared under an idempotency key (a request without one is never a
 * repeat), so only a keyed JSON request pays for the canonical form; with it comes the digest over
 * the bytes that deliveries accepted before the canonical form stored, so a repeat of one of those
 * still replays. Without a key: the digest over the bytes, as always.
 */
export function digests(
  request: DigestedRequest,
  idempotencyKey: string | undefined,
): Pick<AcceptDelivery, 'requestDigest' | 'legacyRequestDigest'> {
  if (idempotencyKey === undefined || request.json === undefined) return { requestDigest: bytesDigest(request) };
  return { requestDigest: requestDigest(request), legacyRequestDigest: bytesDigest(request) };
}
