import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { checkBodyHmacSha256, nonEmptySecret } from './signature-check.shared';

/** The lowercase hex of a SHA-256 HMAC, as Sentry sends it (Python's `hexdigest`). */
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Any non-empty client secret. */
export const sentryTakes = nonEmptySecret;

/**
 * Sentry: `Sentry-Hook-Signature: <hex HMAC-SHA256 of the body>` keyed with the integration's
 * client secret. `Sentry-Hook-Timestamp` is not covered by the signature (nor `Request-ID`), so it
 * is not checked: a signed request sent again later would carry any time it liked. A verified
 * signature is what a repeat is recognised by (replayGuard in @wts/domain). Sentry ships no
 * verifying library: tests check the HMAC against Sentry's documented verification.
 */
export function checkSentry(delivery: SignedDelivery): SignatureVerdict {
  return checkBodyHmacSha256(delivery, delivery.headers.sentryHookSignature, HEX_SHA256, 'hex');
}
