import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { constantTimeEquals, refused, VALID } from './signature-check.shared';

/** `sha256=` and the standard base64 of 32 bytes (44 characters, one `=`). */
const SHA256_BASE64_SIGNATURE = /^sha256=[A-Za-z0-9+/]{43}=$/;

/**
 * X (Twitter): `x-twitter-webhooks-signature: sha256=<base64 HMAC-SHA256 of the body>` keyed with
 * the app's consumer secret. X signs no timestamp, so no tolerance applies; a repeat is recognised
 * by the body (replayGuard in @wts/domain).
 */
export function checkX(delivery: SignedDelivery): SignatureVerdict {
  const signature = delivery.headers.xSignature;
  if (signature === undefined) return refused('missing_signature');
  if (!SHA256_BASE64_SIGNATURE.test(signature)) return refused('malformed_signature');
  const expected = 'sha256=' + createHmac('sha256', delivery.secret).update(delivery.body).digest('base64');
  return constantTimeEquals(signature, expected) ? VALID : refused('signature_mismatch');
}

/** X's CRC answer: `sha256=` and the base64 HMAC-SHA256 of the `crc_token` under the consumer secret. */
export function xResponseToken(secret: string, crcToken: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(crcToken, 'utf8').digest('base64');
}
