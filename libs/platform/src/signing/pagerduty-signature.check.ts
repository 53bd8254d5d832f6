import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_SIGNATURE_HEADER_CHARS, MAX_SIGNATURES, nonEmptySecret, refused, VALID } from './signature-check.shared';

/** A `v1` entry: the hex HMAC-SHA256 of the body (PagerDuty sends lower case; its Go library decodes either). */
const V1_SIGNATURE = /^v1=([0-9a-fA-F]{64})$/;
const V1 = 'v1=';
/** Optional whitespace around an entry (`v1=…, v1=…`). */
const SURROUNDING_BLANKS = /^[ \t]+|[ \t]+$/g;

/** Any non-empty signing secret. */
export const pagerdutyTakes = nonEmptySecret;

/**
 * PagerDuty (v3 webhooks): `X-PagerDuty-Signature: v1=<hex>[,v1=<hex>…]`, each the HMAC-SHA256 of
 * the body under one of the subscription's secrets — several while a secret is being replaced.
 * One matching is enough; every one is compared, in constant time (decoded to the 32 bytes of the
 * expected digest), and a header with more than MAX_SIGNATURES entries is refused unchecked.
 * Entries of another version are skipped, as PagerDuty's own library skips them. PagerDuty signs no
 * timestamp; its event's `id`, in the signed body, is the delivery's idempotency key.
 */
export function checkPagerduty(delivery: SignedDelivery): SignatureVerdict {
  const header = delivery.headers.pagerdutySignature;
  if (header === undefined) return refused('missing_signature');
  const candidates = v1Signatures(header);
  if (candidates === undefined) return refused('malformed_signature');
  const expected = createHmac('sha256', delivery.secret).update(delivery.body).digest();
  let matched = false;
  for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
  return matched ? VALID : refused('signature_mismatch');
}

/**
 * The `v1` signatures of a header, decoded; undefined when it is too long, has more than
 * MAX_SIGNATURES entries, a `v1=` that is not 64 hex digits, or no `v1=` at all.
 */
function v1Signatures(header: string): Buffer[] | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_CHARS) return undefined;
  const entries = header.split(',').map((entry) => entry.replace(SURROUNDING_BLANKS, ''));
  if (entries.length > MAX_SIGNATURES) return undefined;
  const v1: Buffer[] = [];
  for (const entry of entries) {
    if (!entry.startsWith(V1)) continue;
    const hex = V1_SIGNATURE.exec(entry)?.[1];
    if (hex === undefined) return undefined;
    v1.push(Buffer.from(hex, 'hex'));
  }
  return v1.length > 0 ? v1 : undefined;
}
