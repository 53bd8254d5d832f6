/**
 * The cases every signed scheme passes alike, run by each signature-check unit spec
 * (libs/platform/src/signing/*.check.unit.spec.ts) with the scheme's own signing and check.
 */
import type { SignatureVerdict } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import { expectDecoyInProviderForm, expectUnreadableBodiesMismatch, MISMATCH, tampered, VALID } from './signature-check.fixtures';

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

/** The delivery as signed is valid; changed by a byte, checked with a wrong secret, or signed with an old one, a mismatch. */
export function itRefusesAnAlteredDeliveryOrAnotherSecret(scheme: SignedSchemeCase, anotherSecret: () => string): void {
  it('given the body with one byte changed, a wrong secret, or the old secret after a rotation, then it is a mismatch', async () => {
    const { secret, body, signatureOf, judge } = scheme;
    const signature = signatureOf(secret, body);
    await expect(judge(signature, body, secret)).resolves.toEqual(VALID);
    await expect(judge(signature, tampered(body), secret)).resolves.toEqual(MISMATCH);
    await expect(judge(signature, body, anotherSecret())).resolves.toEqual(MISMATCH);
    await expect(judge(signatureOf(anotherSecret(), body), body, secret)).resolves.toEqual(MISMATCH);
  });
}

/** A body that is not UTF-8, or is empty, is a mismatch even under the signature the provider makes for it. */
export function itRefusesAnUnreadableBody(scheme: SignedSchemeCase): void {
  it('given a body that is not UTF-8 or is empty, then a mismatch even under its own signature', async () => {
    const { secret, signatureOf, judge } = scheme;
    await expectUnreadableBodiesMismatch((body) => judge(signatureOf(secret, body), body, secret));
  });
}

/** The decoy is a secret of `form` (`described` in the case's name); a delivery signed with the real secret is a mismatch against it. */
export function itMakesTheDecoyInProviderForm(scheme: SignedSchemeCase, form: RegExp, described: string): void {
  it(`given the decoy, then it is ${described}, and a valid delivery is a mismatch against it`, async () => {
    const { secret, body, signatureOf, judge } = scheme;
    await expectDecoyInProviderForm(scheme.scheme, form, secret, (key, decoy) => judge(signatureOf(key, body), body, decoy));
  });
}
