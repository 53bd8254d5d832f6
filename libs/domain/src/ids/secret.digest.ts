import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Secrets are stored only as SHA-256 digests (they carry 256 random bits, so a fast hash is
 * enough) and compared in constant time on equal-length buffers.
 */
export function digestSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** A digest no secret hashes to in practice: compared against when the endpoint is unknown. */
export const DECOY_DIGEST = digestSecret('whsec_decoy-for-unknown-endpoints');

export function secretMatchesDigest(presented: string, expectedDigestHex: string): boolean {
  return digestsMatch(digestSecret(presented), expectedDigestHex);
}

/** Two hex digests compared in constant time (for a caller that already digested what was presented). */
export function digestsMatch(presentedDigestHex: string, expectedDigestHex: string): boolean {
  return constantTimeBytesEqual(Buffer.from(presentedDigestHex, 'hex'), Buffer.from(expectedDigestHex, 'hex'));
}

/**
 * Whether two byte strings are equal, in constant time for equal lengths; presented bytes of
 * another length are compared with themselves, then refused, so the work stays the same.
 */
export function constantTimeBytesEqual(presented: Buffer, expected: Buffer): boolean {
  if (expected.length !== presented.length) {
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, expected);
}
