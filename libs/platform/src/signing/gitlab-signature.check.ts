import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHash, timingSafeEqual } from 'node:crypto';
import { MAX_SIGNATURE_HEADER_CHARS, nonEmptySecret, refused, VALID } from './signature-check.shared';

/** Any non-empty secret token. */
export const gitlabTakes = nonEmptySecret;

/**
 * GitLab: `X-Gitlab-Token` carries the webhook's secret token itself — GitLab signs nothing, so the
 * token is a bearer credential: whoever holds it can send any body. The token sent and the secret
 * are compared as their SHA-256 digests, in constant time: equal-length buffers whatever the
 * lengths, so neither the secret's length nor how much of it a guess got right shows in the time.
 * No timestamp, and the body is covered by nothing (a delivery's repeats are recognised by
 * GitLab's `Idempotency-Key`).
 */
export function checkGitlab(delivery: SignedDelivery): SignatureVerdict {
  const token = delivery.headers.gitlabToken;
  if (token === undefined) return refused('missing_signature');
  if (token.length === 0 || token.length > MAX_SIGNATURE_HEADER_CHARS) return refused('malformed_signature');
  return timingSafeEqual(digest(token), digest(delivery.secret)) ? VALID : refused('signature_mismatch');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
