import { hash } from 'node:crypto';
import { canonicalJson } from './json-canonical.format';

/** The prefix of a digest over a JSON body's canonical form; digests without it are over the bytes received. */
export const CANONICAL_DIGEST_PREFIX = 'jcs:';

export interface DigestedRequest {
  /** The media type as received, lower-cased. */
  readonly mediaType: string;
  readonly charset: string;
  readonly accountHeader: string | undefined;
  readonly bytes: Buffer;
  /** A JSON body as parsed (lossless-json); absent for text. */
  readonly json?: unknown;
}

/**
 * What tells a repeat of an idempotency key from another request. A JSON body: SHA-256 over its
 * RFC 8785 canonical form (member order, whitespace and number spelling do not matter; the charset
 * it was sent in neither — it is the same value). A text body: SHA-256 over the bytes received, the
 * media type with its charset and the account header — byte for byte, as before.
 */
export function requestDigest(request: DigestedRequest): string {
  if (request.json === undefined) return bytesDigest(request);
  return CANONICAL_DIGEST_PREFIX + hash('sha256', `${request.mediaType}\n${canonicalJson(request.json)}`, 'hex');
}

/**
 * The digest deliveries accepted before canonical comparison stored (over the bytes, for every
 * media type): a repeat of one of those is still recognised by it.
 */
export function bytesDigest(request: DigestedRequest): string {
  const parts = [
    Buffer.from(`${request.mediaType};charset=${request.charset}`),
    Buffer.from(request.accountHeader ?? '\u0000none'),
    request.bytes,
  ];
  // Each part as `<length>:<bytes>`, hashed in one call.
  const framed = Buffer.concat(parts.flatMap((part) => [Buffer.from(`${part.length}:`), part]));
  return hash('sha256', framed, 'hex');
}
