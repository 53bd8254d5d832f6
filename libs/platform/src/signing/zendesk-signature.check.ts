import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { constantTimeEquals, nonEmptySecret, refused, VALID, withinTolerance } from './signature-check.shared';

/** The base64 of a SHA-256 HMAC (32 bytes): 43 characters and one `=`. */
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
/** Zendesk's signature timestamp: ISO 8601 in UTC to the second (`2021-03-25T05:09:27Z`), a fraction allowed. */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;

/** Any non-empty signing secret. */
export const zendeskTakes = nonEmptySecret;

/**
 * Zendesk: `X-Zendesk-Webhook-Signature: base64(HMAC-SHA256(<timestamp><body>))`, the timestamp
 * being `X-Zendesk-Webhook-Signature-Timestamp` exactly as sent, directly followed by the raw body,
 * keyed with the webhook's signing secret. The timestamp must be within the tolerance either way.
 * Zendesk ships no verifying library: tests check the HMAC against Zendesk's documented example.
 */
export function checkZendesk(delivery: SignedDelivery): SignatureVerdict {
  const signature = delivery.headers.zendeskWebhookSignature;
  const timestamp = delivery.headers.zendeskWebhookSignatureTimestamp;
  if (signature === undefined || timestamp === undefined) return refused('missing_signature');
  const seconds = isoSeconds(timestamp);
  if (!BASE64_SHA256.test(signature) || seconds === undefined) return refused('malformed_signature');
  if (!withinTolerance(seconds, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
  const expected = createHmac('sha256', delivery.secret).update(timestamp, 'utf8').update(delivery.body).digest('base64');
  return constantTimeEquals(signature, expected) ? VALID : refused('signature_mismatch');
}

/** The Unix seconds of a timestamp in Zendesk's form, or undefined when it is not one or names no real time (`02-30`). */
function isoSeconds(text: string): number | undefined {
  const parts = ISO_UTC.exec(text);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  const real =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  return real ? ms / 1000 : undefined;
}
