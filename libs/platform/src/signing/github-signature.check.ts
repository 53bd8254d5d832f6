import type { SignatureVerdict, SignedDelivery } from '@wts/application';
// @octokit/webhooks-methods is pinned to 4.1.0: 5.x and later are ESM-only, and this project is
// CommonJS with its tests under ts-jest, which cannot require() an ESM-only package.
import { verify } from '@octokit/webhooks-methods';
import { refused, VALID } from './signature-check.shared';

/**
 * `sha256=` and the 64 lowercase hex digits GitHub sends. Required here because the library's
 * `verify` falls back to HMAC-SHA1 for a signature without the `sha256=` prefix.
 */
const SHA256_SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/** Whether the library takes a secret (any non-empty string). */
export function githubTakes(secret: string): boolean {
  return secret.length > 0;
}

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, checked by Octokit's
 * `verify` (constant time). GitHub signs no timestamp, so no tolerance applies; a verified
 * signature is what a repeat is recognised by (replayGuard in @wts/domain), never the unsigned
 * `X-GitHub-Delivery`.
 */
export async function checkGithub(delivery: SignedDelivery): Promise<SignatureVerdict> {
  const signature = delivery.headers.hubSignature256;
  if (signature === undefined) return refused('missing_signature');
  if (!SHA256_SIGNATURE.test(signature)) return refused('malformed_signature');
  return (await verify(delivery.secret, delivery.body.toString('utf8'), signature)) ? VALID : refused('signature_mismatch');
}
