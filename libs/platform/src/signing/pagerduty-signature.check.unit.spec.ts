import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { headerCheck, MALFORMED, MISMATCH, MISSING, VALID } from './testing/signature-check.fixtures';
import { itPassesTheSharedCases, type SignedSchemeCase } from './testing/signature-check.suite';

const secret = randomBytes(48).toString('base64');
const BODY = Buffer.from(
  JSON.stringify({
    event: {
      id: '01DFNQ2FRPTZRWP3WWX4P1ZRBL',
      event_type: 'incident.triggered',
      resource_type: 'incident',
      occurred_at: '2024-05-01T12:00:00.000Z',
      data: { id: 'PGR0VU2', title: 'Zoë: disk full 🎉' },
    },
  }),
  'utf8',
);
const v1Of = (key: string, body: Buffer | string = BODY): string => `v1=${createHmac('sha256', key).update(body).digest('hex')}`;
const check = headerCheck('pagerduty', 'pagerdutySignature', BODY, secret);
const pagerduty: SignedSchemeCase = { scheme: 'pagerduty', secret, body: BODY, signatureOf: v1Of, judge: check };

/**
 * PagerDuty's own verification (its Go library, webhookv3.VerifySignature; it ships none for Node):
 * split on commas, keep the `v1=` entries that decode as hex, and take the body when one equals the HMAC.
 */
function pagerdutyLibraryVerify(body: Buffer, header: string, key: string): boolean {
  const expected = createHmac('sha256', key).update(body).digest();
  return header
    .split(',')
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => Buffer.from(entry.slice(3), 'hex'))
    .some((signature) => signature.equals(expected));
}

describe('ProviderSignatureVerifier: PagerDuty (X-PagerDuty-Signature)', () => {
  it('given a delivery signed as PagerDuty signs, then it is valid', async () => {
    await expect(check(v1Of(secret))).resolves.toEqual(VALID);
  });

  it("given one to five v1 signatures right or wrong, then the verdict is PagerDuty's library's: one matching is enough", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.base64String({ minLength: 16, maxLength: 88 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1000 }),
        fc.array(fc.constantFrom('right', 'other_secret', 'other_body'), { minLength: 1, maxLength: 5 }),
        async (key, text, kinds) => {
          const body = Buffer.from(text, 'utf8');
          const header = kinds
            .map((kind) => (kind === 'right' ? v1Of(key, body) : kind === 'other_secret' ? v1Of(`${key}x`, body) : v1Of(key, `${text}x`)))
            .join(',');
          const verdict = await check(header, body, key);
          expect(verdict.valid).toBe(pagerdutyLibraryVerify(body, header, key));
          expect(verdict.valid).toBe(kinds.includes('right'));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('given several signatures while a secret is replaced, then either one matching is enough, in any place, and none matching is a mismatch', async () => {
    const old = randomBytes(48).toString('base64');
    await expect(check(`${v1Of(old)},${v1Of(secret)}`)).resolves.toEqual(VALID);
    await expect(check(`${v1Of(secret)},${v1Of(old)}`)).resolves.toEqual(VALID);
    await expect(check(`${v1Of(old)}, ${v1Of(secret)}`)).resolves.toEqual(VALID);
    await expect(check([...Array<string>(15).fill(v1Of(old)), v1Of(secret)].join(','))).resolves.toEqual(VALID);
    await expect(check(`${v1Of(old)},${v1Of(randomBytes(48).toString('base64'))}`)).resolves.toEqual(MISMATCH);
    // Another version is skipped (as PagerDuty's own library skips it), not checked.
    await expect(check(`v2=${'a'.repeat(64)},${v1Of(secret)}`)).resolves.toEqual(VALID);
    // Upper-case hex decodes to the same bytes, as in PagerDuty's library.
    await expect(check(v1Of(secret).toUpperCase().replace('V1=', 'v1='))).resolves.toEqual(VALID);
  });

  it('given more than 16 signatures, or a header over 4096 characters, then malformed_signature, none checked (bounded work)', async () => {
    await expect(check([...Array<string>(16).fill(v1Of('x')), v1Of(secret)].join(','))).resolves.toEqual(MALFORMED);
    await expect(check(`${v1Of(secret)},v9=${'a'.repeat(4096)}`)).resolves.toEqual(MALFORMED);
  });

  it('given no X-PagerDuty-Signature, then missing_signature; no v1, or a v1 not 64 hex digits, is malformed', async () => {
    await expect(check(undefined)).resolves.toEqual(MISSING);
    const v1 = v1Of(secret);
    for (const header of [
      '',
      'v0=abc',
      `v2=${v1.slice(3)}`,
      v1.slice(3),
      `${v1.slice(0, -1)}`,
      `${v1}0`,
      `${v1},v1=zz`,
      `${v1};v1=${v1.slice(3)}`,
      'V1=' + v1.slice(3),
    ]) {
      await expect(check(header)).resolves.toEqual(MALFORMED);
    }
  });

  itPassesTheSharedCases(pagerduty, { form: /^[A-Za-z0-9+/]{64}$/, described: 'a secret in the form PagerDuty shows' }, () =>
    randomBytes(48).toString('base64'),
  );
});
