import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { checkV0 } from './slack-signature.check';

/**
 * Zoom: `x-zm-signature: v0=<hex HMAC-SHA256 of "v0:<x-zm-request-timestamp>:<body>">` keyed with the
 * app's Secret Token, the timestamp (Unix seconds) within the tolerance — Slack's form under Zoom's
 * headers (Zoom's webhook sample computes it the same way).
 */
export function checkZoom(delivery: SignedDelivery): SignatureVerdict {
  return checkV0(delivery.headers.zoomSignature, delivery.headers.zoomTimestamp, delivery);
}

/** Zoom's `encryptedToken`: the hex HMAC-SHA256 of the `plainToken` under the Secret Token. */
export function zoomEncryptedToken(secret: string, plainToken: string): string {
  return createHmac('sha256', secret).update(plainToken, 'utf8').digest('hex');
}
