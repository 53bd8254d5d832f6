/**
 * What the signature-check unit specs share: one verifier, the test clock, verdicts, the
 * delivery a provider would send, and the checks every scheme passes alike
 * (../*.check.unit.spec.ts, ../provider-signature.verifier.unit.spec.ts).
 */
import type { SignatureHeaders, SignatureVerdict, SignedDelivery } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import { signingSecretProblem } from '@wts/domain';
import { ProviderSignatureVerifier } from '../provider-signature.verifier';

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

/** A Standard Webhooks message id, in Svix's form. */
export const MSG_ID = 'msg_2bS4vZ0dfm3QwBwJ0g7hPmbkCyD';

/** Standard Webhooks' three headers, under the standard's own webhook-* names or Svix's svix-* (its branded form). */
export function standardWebhooksHeaders(
  names: 'webhook' | 'svix',
  signature: string,
  seconds = NOW_SECONDS,
  id = MSG_ID,
): SignatureHeaders {
  const timestamp = String(seconds);
  return names === 'svix'
    ? { svixId: id, svixTimestamp: timestamp, svixSignature: signature }
    : { webhookId: id, webhookTimestamp: timestamp, webhookSignature: signature };
}

/** The body with one bit of its third byte flipped. */
export function tampered(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  copy[2] = copy[2]! ^ 0x01;
  return copy;
}

/** A check of a delivery's signature headers: the body and the secret are the spec's unless given. */
export type HeadersCheck = (
  headers: SignatureHeaders,
  body?: Buffer,
  key?: string,
  nowMs?: number,
  tolerance?: number,
) => Promise<SignatureVerdict>;

/** The check of `scheme` on whole headers, with the spec's `body` and `secret` by default. */
export function headersCheck(scheme: SignedScheme, body: Buffer, secret: string): HeadersCheck {
  return (headers, checkedBody = body, key = secret, nowMs = NOW_MS, tolerance = TOLERANCE) =>
    verifier.verify(delivery(scheme, key, checkedBody, headers, nowMs, tolerance));
}

/** A check of one signature header's value: the body and the secret are the spec's unless given. */
export type HeaderCheck = (
  value: string | undefined,
  body?: Buffer,
  key?: string,
  nowMs?: number,
  tolerance?: number,
) => Promise<SignatureVerdict>;

/** The check of a scheme that reads its signature from `header` alone. */
export function headerCheck(scheme: SignedScheme, header: keyof SignatureHeaders, body: Buffer, secret: string): HeaderCheck {
  const check = headersCheck(scheme, body, secret);
  return (value, ...rest) => check({ [header]: value }, ...rest);
}

/** A body that is not UTF-8, or is empty, is a mismatch even under its own signature (`judged` signs the body it checks). */
export async function expectUnreadableBodiesMismatch(judged: (body: Buffer) => Promise<SignatureVerdict>): Promise<void> {
  await expect(judged(NOT_UTF8)).resolves.toEqual(MISMATCH);
  await expect(judged(Buffer.alloc(0))).resolves.toEqual(MISMATCH);
}

/**
 * The scheme's decoy secret is one in the provider's `form` that its rules take; a delivery signed
 * with the real secret is a mismatch against it, and one signed with the decoy is valid.
 * `judgedAgainst(signingKey, decoy)` signs with the key and checks against the decoy. Returns the decoy.
 */
export async function expectDecoyInProviderForm(
  scheme: SignedScheme,
  form: RegExp,
  secret: string,
  judgedAgainst: (signingKey: string, decoy: string) => Promise<SignatureVerdict>,
): Promise<string> {
  const decoy = verifier.decoySecret(scheme);
  expect(decoy).toMatch(form);
  expect(signingSecretProblem(scheme, decoy)).toBeUndefined();
  await expect(judgedAgainst(secret, decoy)).resolves.toEqual(MISMATCH);
  await expect(judgedAgainst(decoy, decoy)).resolves.toEqual(VALID);
  return decoy;
}
