import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { constantTimeEquals, nonEmptySecret, refused, VALID } from './signature-check.shared';

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
  const signature = delivery.headers.sentryHookSignature;
  if (signature === undefined) return refused('missing_signature');
  if (!HEX_SHA256.test(signature)) return refused('malformed_signature');
  const expected = createHmac('sha256', delivery.secret).update(delivery.body).digest('hex');
  return constantTimeEquals(signature, expected) ? VALID : refused('signature_mismatch');
}
