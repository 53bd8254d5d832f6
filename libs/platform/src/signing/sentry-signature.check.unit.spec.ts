import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { headerCheck, MALFORMED, MISMATCH, MISSING, VALID } from './testing/signature-check.fixtures';
import { itPassesTheSharedCases, type SignedSchemeCase } from './testing/signature-check.suite';

const secret = randomBytes(32).toString('hex');
const PAYLOAD = {
  action: 'created',
  installation: { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' },
  data: { issue: { id: '1170820242' } },
};
const BODY = Buffer.from(JSON.stringify(PAYLOAD), 'utf8');
const hexOf = (key: string, body: Buffer | string): string => createHmac('sha256', key).update(body).digest('hex');
const check = headerCheck('sentry', 'sentryHookSignature', BODY, secret);
const sentry: SignedSchemeCase = { scheme: 'sentry', secret, body: BODY, signatureOf: hexOf, judge: check };

/** Sentry's documented verification (docs.sentry.io, integration platform → webhooks): it ships no library. */
function sentryDocumentedVerify(requestBody: unknown, signature: string, clientSecret: string): boolean {
  const hmac = createHmac('sha256', clientSecret);
  hmac.update(JSON.stringify(requestBody), 'utf8');
  return hmac.digest('hex') === signature;
}

describe('ProviderSignatureVerifier: Sentry (Sentry-Hook-Signature)', () => {
  it("given any JSON payload Sentry sends and a signature right or wrong, then the verdict is Sentry's documented verification's", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[0-9a-f]{64}$/),
        fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(fc.string({ unit: 'grapheme' }), fc.integer(), fc.boolean()), { minKeys: 1 }),
        fc.constantFrom('right', 'other_secret', 'other_body'),
        async (key, payload, kind) => {
          const text = JSON.stringify(payload);
          const signature = kind === 'right' ? hexOf(key, text) : kind === 'other_secret' ? hexOf(`${key}0`, text) : hexOf(key, `${text} `);
          const verdict = await check(signature, Buffer.from(text, 'utf8'), key);
          expect(verdict.valid).toBe(sentryDocumentedVerify(JSON.parse(text), signature, key));
          expect(verdict.valid).toBe(kind === 'right');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('given the raw bytes signed (whitespace the parsed payload would lose), then it is judged on those bytes, not a re-serialisation', async () => {
    const spaced = Buffer.from(JSON.stringify(PAYLOAD, null, 2), 'utf8');
    await expect(check(hexOf(secret, spaced), spaced)).resolves.toEqual(VALID);
    await expect(check(hexOf(secret, BODY), spaced)).resolves.toEqual(MISMATCH);
  });

  it('given no Sentry-Hook-Signature, then missing_signature; one not 64 lowercase hex digits is malformed', async () => {
    await expect(check(undefined)).resolves.toEqual(MISSING);
    const signature = hexOf(secret, BODY);
    for (const header of [
      '',
      signature.toUpperCase(),
      signature.slice(2),
      `sha256=${signature}`,
      `${signature} `,
      'z'.repeat(64),
      'x'.repeat(5000),
    ]) {
      await expect(check(header)).resolves.toEqual(MALFORMED);
    }
  });

  itPassesTheSharedCases(sentry, { form: /^[0-9a-f]{64}$/, described: "a client secret in Sentry's form" }, () =>
    randomBytes(32).toString('hex'),
  );
});
