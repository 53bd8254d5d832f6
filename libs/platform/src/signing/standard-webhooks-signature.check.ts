import type { SignatureHeaders, SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  constantTimeEquals,
  MAX_SIGNATURE_HEADER_CHARS,
  MAX_SIGNATURES,
  refused,
  signedSeconds,
  VALID,
  withinTolerance,
} from './signature-check.shared';

const V1 = 'v1,';
const SECRET_PREFIX = 'whsec_';

/** Whether the library takes a secret (`whsec_` and base64 of a non-empty key). */
export function standardWebhooksTakes(secret: string): boolean {
  try {
    new Webhook(secret);
    return true;
  } catch {
    return false;
  }
}

/** Where a sender following the standard puts its message id, timestamp and signature. */
export interface StandardWebhooksHeaderNames {
  readonly id: keyof SignatureHeaders;
  readonly timestamp: keyof SignatureHeaders;
  readonly signature: keyof SignatureHeaders;
}

/**
 * Standard Webhooks: `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<body>`, the
 * key being the secret's base64 after `whsec_`, under the header names a sender uses (`webhook-*`,
 * or Svix's `svix-*`). The library checks the secret's form (standardWebhooksTakes); the HMAC is
 * node:crypto's, over the raw body bytes: the library's own `sign` hashes in pure JavaScript
 * (fast-sha256), 4 to 8 ms for a 256 KiB body against node:crypto's 0.2 to 0.5 ms — work any sender
 * of a `webhook-signature` header could make us do, known endpoint or not. Tests prove the two agree
 * byte for byte (the published vector, and the library's `sign` and `verify` on generated
 * deliveries). The library's `verify` is not used either: its tolerance is a fixed five minutes
 * against `Date.now()`, and it JSON-parses the body on success; here the tolerance is configured
 * and the clock is the delivery's.
 */
export function standardWebhooksCheck(names: StandardWebhooksHeaderNames): (delivery: SignedDelivery) => SignatureVerdict {
  return (delivery) => {
    const { [names.id]: messageId, [names.timestamp]: timestamp, [names.signature]: signature } = delivery.headers;
    if (messageId === undefined || timestamp === undefined || signature === undefined) return refused('missing_signature');
    const candidates = v1Signatures(signature);
    const seconds = signedSeconds(timestamp);
    if (messageId.length === 0 || messageId.length > MAX_SIGNATURE_HEADER_CHARS || candidates === undefined || seconds === undefined) {
      return refused('malformed_signature');
    }
    if (!withinTolerance(seconds, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
    const expected = signatureOf(delivery.secret, messageId, seconds, delivery.body);
    let matched = false;
    for (const candidate of candidates) matched = constantTimeEquals(candidate, expected) || matched;
    return matched ? VALID : refused('signature_mismatch');
  };
}

/** Standard Webhooks under the standard's own header names. */
export const checkStandardWebhooks = standardWebhooksCheck({
  id: 'webhookId',
  timestamp: 'webhookTimestamp',
  signature: 'webhookSignature',
});

/** The standard's v1 signature (base64) of a message; `secret` is one the library takes. */
export function signatureOf(secret: string, messageId: string, seconds: number, body: Buffer): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${messageId}.${seconds}.`, 'utf8').update(body).digest('base64');
}

/**
 * The `v1` signatures of a `webhook-signature` header (space-delimited `<version>,<signature>`);
 * other versions (`v1a`, asymmetric) are skipped, as the standard asks. Undefined when the header
 * is too long, carries too many signatures or none in `v1`.
 */
function v1Signatures(header: string): string[] | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_CHARS) return undefined;
  const entries = header.split(' ').filter((entry) => entry !== '');
  if (entries.length > MAX_SIGNATURES) return undefined;
  const v1 = entries.filter((entry) => entry.startsWith(V1)).map((entry) => entry.slice(V1.length));
  return v1.length > 0 ? v1 : undefined;
}
