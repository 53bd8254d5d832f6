import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { constantTimeEquals, MAX_SIGNATURE_HEADER_CHARS, refused, VALID, withinTolerance } from './signature-check.shared';

/** `sha256=` and 64 lowercase hex digits. */
const SHA256_HEX_SIGNATURE = /^sha256=[0-9a-f]{64}$/;
/** RFC 3339 as Twitch sends it: UTC, fractional seconds up to nanoseconds (`2023-07-19T10:11:12.123456789Z`). */
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
/** Twitch asks to refuse a message older than ten minutes: the tolerance is never shorter here. */
export const TWITCH_MIN_TOLERANCE_SECONDS = 600;

/**
 * Twitch EventSub: `Twitch-Eventsub-Message-Signature: sha256=<hex HMAC-SHA256 of
 * message-id + message-timestamp + body>` keyed with the subscription's secret, the timestamp
 * within the tolerance but never less than Twitch's ten minutes. The message id is signed: it is
 * the delivery's idempotency key (Twitch resends a message under the same id).
 */
export function checkTwitch(delivery: SignedDelivery): SignatureVerdict {
  const { twitchSignature: signature, twitchMessageId: id, twitchTimestamp: timestamp } = delivery.headers;
  if (signature === undefined || id === undefined || timestamp === undefined) return refused('missing_signature');
  const seconds = rfc3339Seconds(timestamp);
  if (!SHA256_HEX_SIGNATURE.test(signature) || seconds === undefined || id.length === 0 || id.length > MAX_SIGNATURE_HEADER_CHARS) {
    return refused('malformed_signature');
  }
  const tolerance = Math.max(delivery.toleranceSeconds, TWITCH_MIN_TOLERANCE_SECONDS);
  if (!withinTolerance(seconds, delivery.nowMs, tolerance)) return refused('timestamp_outside_tolerance');
  return constantTimeEquals(signature, twitchSignatureOf(delivery.secret, id, timestamp, delivery.body))
    ? VALID
    : refused('signature_mismatch');
}

/** `sha256=` and the hex HMAC-SHA256 of the message id, the timestamp and the body, concatenated. */
export function twitchSignatureOf(secret: string, messageId: string, timestamp: string, body: Buffer): string {
  return (
    'sha256=' +
    createHmac('sha256', secret)
      .update(messageId + timestamp, 'utf8')
      .update(body)
      .digest('hex')
  );
}

/** Whole Unix seconds of an RFC 3339 timestamp (the fraction beyond milliseconds dropped); undefined when not one. */
function rfc3339Seconds(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const milliseconds = Date.parse(`${match[1]}.${(match[2] ?? '').padEnd(3, '0').slice(0, 3)}${match[3]}`);
  return Number.isFinite(milliseconds) ? Math.floor(milliseconds / 1000) : undefined;
}
