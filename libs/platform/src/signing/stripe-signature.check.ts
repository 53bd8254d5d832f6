import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import Stripe from 'stripe';
import { MAX_SIGNATURE_HEADER_CHARS, MAX_SIGNATURES, refused, signedSeconds, VALID, withinTolerance } from './signature-check.shared';

const stripeSignature = signatureHelper();
const { StripeSignatureVerificationError } = Stripe.errors;

/** A `v1` signature: the hex HMAC-SHA256 of `<t>.<body>`, as Stripe sends it. */
const V1_SIGNATURE = /^[0-9a-f]{64}$/;

/** Whether the library takes a secret (it refuses an empty or whitespace-only one before computing). */
export function stripeTakes(secret: string): boolean {
  return /[^ \t\r\n\f\v]/.test(secret);
}

/**
 * Stripe: `Stripe-Signature: t=<seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`, checked by the library's
 * `verifyHeader` (constant-time comparison with every `v1`). The library only refuses timestamps
 * that are too old; one too far in the future is refused here. A `StripeSignatureVerificationError`
 * carries the header and the payload in its message: it is mapped to a reason and never passed on.
 */
export function checkStripe(delivery: SignedDelivery): SignatureVerdict {
  const header = delivery.headers.stripeSignature;
  if (header === undefined) return refused('missing_signature');
  const seconds = stripeTimestamp(header);
  if (seconds === undefined) return refused('malformed_signature');
  if (!withinTolerance(seconds, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
  try {
    stripeSignature.verifyHeader(
      delivery.body.toString('utf8'),
      header,
      delivery.secret,
      delivery.toleranceSeconds,
      undefined,
      delivery.nowMs,
    );
    return VALID;
  } catch (error: unknown) {
    if (error instanceof StripeSignatureVerificationError) return refused('signature_mismatch');
    throw error;
  }
}

/**
 * The `t=` of a header in Stripe's form, or undefined when the form is off: too long, no `t=` or
 * more than one, a `t=` not digits only, a `v1=` not 64 lowercase hex digits, no `v1=`, or more
 * than MAX_SIGNATURES signatures. Items split as the library splits them (`,` then the key before
 * `=`), so the timestamp found here is the one it signs over.
 */
function stripeTimestamp(header: string): number | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_CHARS) return undefined;
  let seconds: number | undefined;
  let timestamps = 0;
  let v1 = 0;
  let signatures = 0;
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
      v1 += 1;
    }
  }
  return timestamps === 1 && v1 > 0 && signatures <= MAX_SIGNATURES ? seconds : undefined;
}

/** The static signature helper, checked once at load: a package without it fails the start, not every delivery. */
function signatureHelper(): NonNullable<typeof Stripe.webhooks.signature> {
  const helper = Stripe.webhooks.signature;
  if (helper === null) {
    throw new Error(
      "the stripe package has no webhook signature helper (Stripe.webhooks.signature): Stripe's deliveries cannot be verified",
    );
  }
  return helper;
}
