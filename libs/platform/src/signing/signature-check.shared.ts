import type { SignatureFailure, SignatureVerdict, SignedDelivery } from '@wts/application';
import { constantTimeBytesEqual } from '@wts/domain';
import { createHmac } from 'node:crypto';

/**
 * A signature header longer than this is refused unread: providers send well under a kilobyte
 * (GitHub 71 characters, Stripe a timestamp and one to three signatures, Standard Webhooks and
 * PagerDuty one signature per active secret).
 */
export const MAX_SIGNATURE_HEADER_CHARS = 4_096;
/** A header carrying more signatures than this is refused unchecked: each one is a comparison. */
export const MAX_SIGNATURES = 16;

/** Unix seconds as providers send them: digits only (no sign, exponent, point or space), at most 15 so the value is exact. */
const SIGNED_SECONDS = /^[0-9]{1,15}$/;

export const VALID: SignatureVerdict = { valid: true };

export function refused(reason: SignatureFailure): SignatureVerdict {
  return { valid: false, reason };
}

/** The signed timestamp of a header, or undefined when it is not digits only. */
export function signedSeconds(text: string): number | undefined {
  return SIGNED_SECONDS.test(text) ? Number(text) : undefined;
}

/**
 * Whether a signed timestamp is within `toleranceSeconds` of `nowMs`, either way: an old one is a
 * replay, a future one a replay held back for later. Whole seconds, as the providers' libraries count.
 */
export function withinTolerance(seconds: number, nowMs: number, toleranceSeconds: number): boolean {
  const now = Math.floor(nowMs / 1000);
  return now - seconds <= toleranceSeconds && seconds - now <= toleranceSeconds;
}

/**
 * Whether a signed timestamp in milliseconds (Linear's `webhookTimestamp`) is within
 * `toleranceSeconds` of `nowMs`, either way, counted in milliseconds as Linear's own client counts.
 */
export function withinToleranceMs(signedMs: number, nowMs: number, toleranceSeconds: number): boolean {
  const tolerance = toleranceSeconds * 1000;
  return nowMs - signedMs <= tolerance && signedMs - nowMs <= tolerance;
}

/**
 * Whether a signature as sent equals the expected one, in constant time for equal lengths; a
 * candidate of another length is compared with itself, then refused, so the work stays the same.
 */
export function constantTimeEquals(candidate: string, expected: string): boolean {
  return constantTimeBytesEqual(Buffer.from(candidate, 'utf8'), Buffer.from(expected, 'utf8'));
}

/**
 * A signature that is the HMAC-SHA256 of the raw body alone, keyed with the secret and sent in one
 * header as `encoding` (Sentry, Shopify): missing when absent, malformed — never checked — when not
 * of `form`, else compared in constant time with the header as sent.
 */
export function checkBodyHmacSha256(
  delivery: SignedDelivery,
  signature: string | undefined,
  form: RegExp,
  encoding: 'hex' | 'base64',
): SignatureVerdict {
  if (signature === undefined) return refused('missing_signature');
  if (!form.test(signature)) return refused('malformed_signature');
  const expected = createHmac('sha256', delivery.secret).update(delivery.body).digest(encoding);
  return constantTimeEquals(signature, expected) ? VALID : refused('signature_mismatch');
}

/** Whether a library takes a secret at all: these providers' take any non-empty one. */
export function nonEmptySecret(secret: string): boolean {
  return secret.length > 0;
}
