import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_SIGNATURE_HEADER_CHARS, MAX_SIGNATURES, refused, signedSeconds, VALID, withinTolerance } from './signature-check.shared';

/** A `v1` signature: the hex HMAC-SHA256 of `<t>.<body>`, as Stripe sends it. */
const V1_SIGNATURE = /^[0-9a-f]{64}$/;

/** Whether Stripe takes a secret (its library refuses an empty or whitespace-only one); one it does not is replaced by the decoy. */
export function stripeTakes(secret: string): boolean {
  return /[^ \t\r\n\f\v]/.test(secret);
}

/**
 * Stripe: `Stripe-Signature: t=<seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`, the hex HMAC-SHA256 of
 * `<t>.<body>` keyed with the whole `whsec_…` secret, compared in constant time with every `v1`.
 * The HMAC is node:crypto's over the raw body bytes, as for Standard Webhooks: the library's
 * `verifyHeader` returns on a match and throws a StripeSignatureVerificationError (a stack, a
 * message, the header and the payload) on a mismatch — 14 µs in-process, 30–40 µs over HTTP, so a
 * valid signature sent to a disabled webhook was answered measurably sooner than every other
 * refusal (docs/timing.md) — and it decodes the body to text to encode it again. Tests prove the
 * verdicts are the library's (`verifyHeader`, `generateTestHeaderString`) on generated deliveries.
 */
export function checkStripe(delivery: SignedDelivery): SignatureVerdict {
  const header = delivery.headers.stripeSignature;
  if (header === undefined) return refused('missing_signature');
  const parsed = stripeHeader(header);
  if (parsed === undefined) return refused('malformed_signature');
  if (!withinTolerance(parsed.seconds, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
  const expected = Buffer.from(stripeSignatureOf(delivery.secret, parsed.seconds, delivery.body), 'utf8');
  let matched = false;
  // Every v1 is 64 hex digits (stripeHeader), as long as the expected one: compared in constant time, all of them.
  for (const candidate of parsed.v1) matched = timingSafeEqual(Buffer.from(candidate, 'utf8'), expected) || matched;
  return matched ? VALID : refused('signature_mismatch');
}

/** Stripe's v1 signature (hex) of a body at `seconds`: what its library computes, over the raw bytes. */
export function stripeSignatureOf(secret: string, seconds: number, body: Buffer): string {
  return createHmac('sha256', secret).update(`${seconds}.`, 'utf8').update(body).digest('hex');
}

/**
 * The `t=` and the `v1=` signatures of a header in Stripe's form, or undefined when the form is off:
 * too long, no `t=` or more than one, a `t=` not digits only, a `v1=` not 64 lowercase hex digits,
 * no `v1=`, or more than MAX_SIGNATURES signatures. Items split as the library splits them (`,`
 * then the key before `=`), so the timestamp found here is the one it signs over.
 */
function stripeHeader(header: string): { readonly seconds: number; readonly v1: readonly string[] } | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_CHARS) return undefined;
  let seconds: number | undefined;
  let timestamps = 0;
  let signatures = 0;
  const v1: string[] = [];
  for (const item of header.split(',')) {
    const equals = item.indexOf('=');
    const key = equals < 0 ? item : item.slice(0, equals);
    const value = equals < 0 ? '' : item.slice(equals + 1);
    if (key === 't') {
      timestamps += 1;
      seconds = signedSeconds(value);
      continue;
    }
    signatures += 1;
    if (key === 'v1') {
      if (!V1_SIGNATURE.test(value)) return undefined;
      v1.push(value);
    }
  }
  return timestamps === 1 && seconds !== undefined && v1.length > 0 && signatures <= MAX_SIGNATURES ? { seconds, v1 } : undefined;
}
