/**
 * What the signature-check unit specs share: one verifier, the test clock, verdicts, and the
 * delivery a provider would send (libs/platform/src/signing/*.check.unit.spec.ts).
 */
import type { SignatureHeaders, SignatureVerdict, SignedDelivery } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import { ProviderSignatureVerifier } from '../../libs/platform/src/signing/provider-signature.verifier';

export const verifier = new ProviderSignatureVerifier();
/** The clock of the tests: a whole second and a half, so the flooring of milliseconds counts. */
export const NOW_SECONDS = 1_700_000_000;
export const NOW_MS = NOW_SECONDS * 1000 + 500;
export const TOLERANCE = 300;
/** Not UTF-8: a lone continuation byte and a truncated sequence. */
export const NOT_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x80, 0xc3, 0x7d]);

export const VALID: SignatureVerdict = { valid: true };
export const MISMATCH: SignatureVerdict = { valid: false, reason: 'signature_mismatch' };
export const MALFORMED: SignatureVerdict = { valid: false, reason: 'malformed_signature' };
export const MISSING: SignatureVerdict = { valid: false, reason: 'missing_signature' };
export const OUTSIDE: SignatureVerdict = { valid: false, reason: 'timestamp_outside_tolerance' };

export function delivery(
  scheme: SignedScheme,
  secret: string,
  body: Buffer,
  headers: SignatureHeaders,
  nowMs = NOW_MS,
  toleranceSeconds = TOLERANCE,
): SignedDelivery {
  return { scheme, secret, body, headers, nowMs, toleranceSeconds };
}

/** The body with one bit of its third byte flipped. */
export function tampered(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  copy[2] = copy[2]! ^ 0x01;
  return copy;
}
