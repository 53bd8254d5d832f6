import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { constantTimeEquals, nonEmptySecret, refused, VALID, withinToleranceMs } from './signature-check.shared';

/** The lowercase hex of a SHA-256 HMAC: Linear's client compares the header with exactly that. */
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Linear's client takes any non-empty secret. */
export const linearTakes = nonEmptySecret;

/**
 * Linear: `Linear-Signature: <hex HMAC-SHA256 of the body>` keyed with the webhook's signing
 * secret; the time is the body's own `webhookTimestamp` (milliseconds), signed with it, and must be
 * within the tolerance either way — Linear's client trusts only that one, not the `Linear-Timestamp`
 * header. The timestamp is read from the body before any HMAC (a JSON parse of the bounded body,
 * whatever the endpoint), so a request whose signed time is missing, malformed or out of tolerance
 * costs no signature, as for the other schemes. Tests prove the verdicts are `@linear/sdk`'s
 * (`LinearWebhookClient.verify`).
 */
export function checkLinear(delivery: SignedDelivery): SignatureVerdict {
  const signature = delivery.headers.linearSignature;
  if (signature === undefined) return refused('missing_signature');
  const signedMs = webhookTimestampOf(delivery.body);
  if (signedMs === undefined) return refused('missing_signature');
  if (!HEX_SHA256.test(signature) || signedMs === 'malformed') return refused('malformed_signature');
  if (!withinToleranceMs(signedMs, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
  const expected = createHmac('sha256', delivery.secret).update(delivery.body).digest('hex');
  return constantTimeEquals(signature, expected) ? VALID : refused('signature_mismatch');
}

/**
 * The body's top-level `webhookTimestamp`: undefined when the body is not a JSON object or has none
 * (or `null`, as Linear's client reads it), `'malformed'` when it is not a whole, non-negative
 * number of milliseconds. Parsed as Linear's client parses it (JSON.parse: the last of duplicate members).
 */
function webhookTimestampOf(body: Buffer): number | 'malformed' | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const value = (parsed as Record<string, unknown>)['webhookTimestamp'];
  if (value === undefined || value === null) return undefined;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 'malformed';
}
