/**
 * The cases every signed scheme passes alike, run by each signature-check unit spec
 * (../*.check.unit.spec.ts) with the scheme's own signing and check.
 */
import type { SignatureHeaders, SignatureVerdict } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import fc from 'fast-check';
import {
  delivery,
  expectDecoyInProviderForm,
  expectUnreadableBodiesMismatch,
  MISMATCH,
  NOW_MS,
  NOW_SECONDS,
  OUTSIDE,
  tampered,
  TOLERANCE,
  VALID,
  verifier,
} from './signature-check.fixtures';

/** One scheme as its spec sees it: the spec's secret and body, how the provider signs, how the delivery is judged. */
export interface SignedSchemeCase {
  scheme: SignedScheme;
  secret: string;
  body: Buffer;
  /** The signature (or token) the provider sends for `body` signed with `key`. */
  signatureOf: (key: string, body: Buffer) => string;
  /** The verdict on a delivery of `body` carrying `signature`, checked against the secret `key`. */
  judge: (signature: string, body: Buffer, key: string) => Promise<SignatureVerdict>;
}

/** The form of the provider's secrets, which the decoy takes, and the provider's words for it (in the case's name). */
export interface DecoyForm {
  form: RegExp;
  described: string;
}

/**
 * The delivery as signed is valid; changed by a byte, checked with a wrong secret, or signed with
 * an old one (`anotherSecret` makes one in the provider's form; none for a scheme that signs
 * nothing, as GitLab sends its token as is), a mismatch. A body that is not UTF-8, or is empty, is
 * a mismatch even under the signature the provider makes for it. The decoy is of the provider's form.
 */
export function itPassesTheSharedCases(scheme: SignedSchemeCase, decoy: DecoyForm, anotherSecret?: () => string): void {
  const { secret, body, signatureOf, judge } = scheme;
  if (anotherSecret !== undefined) {
    it('given the body with one byte changed, a wrong secret, or the old secret after a rotation, then it is a mismatch', async () => {
      const signature = signatureOf(secret, body);
      await expect(judge(signature, body, secret)).resolves.toEqual(VALID);
      await expect(judge(signature, tampered(body), secret)).resolves.toEqual(MISMATCH);
      await expect(judge(signature, body, anotherSecret())).resolves.toEqual(MISMATCH);
      await expect(judge(signatureOf(anotherSecret(), body), body, secret)).resolves.toEqual(MISMATCH);
    });
  }

  it('given a body that is not UTF-8 or is empty, then a mismatch even under its own signature', async () => {
    await expectUnreadableBodiesMismatch((unreadable) => judge(signatureOf(secret, unreadable), unreadable, secret));
  });

  it(`given the decoy, then it is ${decoy.described}, and a valid delivery is a mismatch against it`, async () => {
    await expectDecoyInProviderForm(scheme.scheme, decoy.form, secret, (key, decoySecret) =>
      judge(signatureOf(key, body), body, decoySecret),
    );
  });
}

/**
 * A delivery signed at `seconds` is valid within the tolerance either way, to the second, and
 * outside it refused; a tolerance of zero still takes the very second. `judgedAt` signs at
 * `seconds` and judges at `nowMs` under `tolerance`.
 */
export function itHoldsTheTimestampToTheTolerance(
  judgedAt: (seconds: number, nowMs: number, tolerance: number) => Promise<SignatureVerdict>,
): void {
  it('given timestamps at and beyond the tolerance both ways, then just inside is valid and just outside is refused', async () => {
    const at = (seconds: number, tolerance = TOLERANCE): Promise<SignatureVerdict> => judgedAt(seconds, NOW_MS, tolerance);
    await expect(at(NOW_SECONDS - TOLERANCE)).resolves.toEqual(VALID);
    await expect(at(NOW_SECONDS + TOLERANCE)).resolves.toEqual(VALID);
    await expect(at(NOW_SECONDS - TOLERANCE - 1)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS + TOLERANCE + 1)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS, 0)).resolves.toEqual(VALID);
    await expect(at(NOW_SECONDS - 1, 0)).resolves.toEqual(OUTSIDE);
  });
}

/** A header's value as a client could send it: none, any Latin-1 text, or one of the `forms` made from such text. */
export function anyHeaderValue(forms: (latin1: fc.Arbitrary<string>) => fc.Arbitrary<string>[]): fc.Arbitrary<string | undefined> {
  const latin1 = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)), maxLength: 200 });
  return fc.oneof(fc.constant(undefined), latin1, ...forms(latin1));
}

/** Whatever `headers` and `body` a client sends, a delivery checked against each scheme's decoy is refused, never thrown on. */
export function itRefusesAnythingAgainstTheDecoys(
  schemes: readonly SignedScheme[],
  headers: fc.Arbitrary<SignatureHeaders>,
  body: fc.Arbitrary<Buffer>,
): void {
  it('is a refusal against the decoys, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...schemes), body, headers, async (scheme, sent, sentHeaders) => {
        expect((await verifier.verify(delivery(scheme, verifier.decoySecret(scheme), sent, sentHeaders))).valid).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
}
