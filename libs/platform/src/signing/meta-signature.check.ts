import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { metaCredentialOf } from '@wts/domain';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { constantTimeEquals, refused, VALID } from './signature-check.shared';

/** `sha256=` and 64 lowercase hex digits: GitHub's form, which Meta shares. */
const SHA256_HEX_SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/** Whether the credential is Meta's pair (app secret and verify token); one that is not is replaced by the decoy. */
export function metaTakes(credential: string): boolean {
  return metaCredentialOf(credential) !== undefined;
}

/**
 * Meta: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` keyed with the App Secret —
 * GitHub's header and form; a request is Meta's when it carries no `X-GitHub-Event` nor
 * `X-GitHub-Delivery` (claimedScheme in @wts/domain). Meta signs no timestamp: a repeat is
 * recognised by the body.
 */
export function checkMeta(delivery: SignedDelivery): SignatureVerdict {
  const signature = delivery.headers.hubSignature256;
  if (signature === undefined) return refused('missing_signature');
  if (!SHA256_HEX_SIGNATURE.test(signature)) return refused('malformed_signature');
  const secret = metaCredentialOf(delivery.secret)?.secret ?? '';
  const expected = 'sha256=' + createHmac('sha256', secret).update(delivery.body).digest('hex');
  return constantTimeEquals(signature, expected) ? VALID : refused('signature_mismatch');
}

/**
 * Whether Meta's `hub.verify_token` is the webhook's: their SHA-256 digests compared in constant
 * time (equal lengths whatever was sent).
 */
export function metaVerifyTokenMatches(credential: string, given: string): boolean {
  const expected = metaCredentialOf(credential)?.verifyToken ?? '';
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected)) && expected !== '';
}
