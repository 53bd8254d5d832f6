import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { constantTimeEquals, refused, signedSeconds, VALID, withinTolerance } from './signature-check.shared';

/** `v0=` and the 64 lowercase hex digits of an HMAC-SHA256, as Slack and Zoom send them. */
export const V0_SIGNATURE = /^v0=[0-9a-f]{64}$/;

/**
 * Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<body>">` keyed
 * with the app's signing secret, the timestamp (Unix seconds) within the tolerance (Slack asks for
 * five minutes). The HMAC is node:crypto's over the raw body bytes; tests prove the verdicts are
 * `@slack/bolt`'s (`isValidSlackRequest`).
 */
export function checkSlack(delivery: SignedDelivery): SignatureVerdict {
  return checkV0(delivery.headers.slackSignature, delivery.headers.slackTimestamp, delivery);
}

/** Slack's and Zoom's v0 scheme: the same form, the same HMAC, under their own headers. */
export function checkV0(signature: string | undefined, timestamp: string | undefined, delivery: SignedDelivery): SignatureVerdict {
  if (signature === undefined || timestamp === undefined) return refused('missing_signature');
  const seconds = signedSeconds(timestamp);
  if (!V0_SIGNATURE.test(signature) || seconds === undefined) return refused('malformed_signature');
  if (!withinTolerance(seconds, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
  return constantTimeEquals(signature, v0SignatureOf(delivery.secret, timestamp, delivery.body)) ? VALID : refused('signature_mismatch');
}

/** `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<body>` (Slack's and Zoom's). */
export function v0SignatureOf(secret: string, timestamp: string, body: Buffer): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:`, 'utf8').update(body).digest('hex');
}
