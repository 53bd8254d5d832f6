import type { SignatureVerdict } from '@wts/application';

import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { headersCheck, MALFORMED, MISMATCH, MISSING, NOW_SECONDS, TOLERANCE, VALID } from './testing/signature-check.fixtures';
import { itHoldsTheTimestampToTheTolerance, itPassesTheSharedCases, type SignedSchemeCase } from './testing/signature-check.suite';

const secret = randomBytes(32).toString('base64');
const BODY = Buffer.from(JSON.stringify({ type: 'zen:event-type:ticket.created', id: 'cbe4028c', detail: { subject: 'Zoë 🎉' } }), 'utf8');
const isoAt = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
const NOW_ISO = isoAt(NOW_SECONDS);
/** Over the body's bytes as sent (a body that is not UTF-8 included). */
const signatureOf = (key: string, timestamp: string, body: Buffer | string = BODY): string =>
  createHmac('sha256', key).update(timestamp).update(body).digest('base64');
const judged = headersCheck('zendesk', BODY, secret);
const check = (
  zendeskWebhookSignature: string | undefined,
  zendeskWebhookSignatureTimestamp: string | undefined = NOW_ISO,
  ...rest: [body?: Buffer, key?: string, nowMs?: number, tolerance?: number]
): Promise<SignatureVerdict> => judged({ zendeskWebhookSignature, zendeskWebhookSignatureTimestamp }, ...rest);
const zendesk: SignedSchemeCase = {
  scheme: 'zendesk',
  secret,
  body: BODY,
  signatureOf: (key, body) => signatureOf(key, NOW_ISO, body),
  judge: (signature, body, key) => check(signature, NOW_ISO, body, key),
};

/** Zendesk's documented verification (developer.zendesk.com, "Verifying webhook authenticity"): base64(HMACSHA256(TIMESTAMP + BODY)). */
function zendeskDocumentedVerify(signature: string, body: string, timestamp: string, signingSecret: string): boolean {
  const sig = createHmac('sha256', signingSecret)
    .update(timestamp + body)
    .digest('base64');
  return Buffer.compare(Buffer.from(signature), Buffer.from(sig)) === 0;
}

describe('ProviderSignatureVerifier: Zendesk (X-Zendesk-Webhook-Signature)', () => {
  it('given a delivery signed as Zendesk signs, with its documented timestamp form, then it is valid', async () => {
    expect(NOW_ISO).toBe('2023-11-14T22:13:20Z');
    await expect(check(signatureOf(secret, NOW_ISO))).resolves.toEqual(VALID);
  });

  it("given any secret, time and UTF-8 body, and a signature right or wrong, then the verdict is Zendesk's documented verification's", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.base64String({ minLength: 16, maxLength: 88 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1000 }),
        fc.integer({ min: -TOLERANCE, max: TOLERANCE }),
        fc.constantFrom('right', 'other_secret', 'other_time', 'other_body'),
        async (key, text, skew, kind) => {
          const timestamp = isoAt(NOW_SECONDS + skew);
          const signature =
            kind === 'right'
              ? signatureOf(key, timestamp, text)
              : kind === 'other_secret'
                ? signatureOf(`${key}x`, timestamp, text)
                : kind === 'other_time'
                  ? signatureOf(key, isoAt(NOW_SECONDS + skew + 1), text)
                  : signatureOf(key, timestamp, `${text}x`);
          const verdict = await check(signature, timestamp, Buffer.from(text, 'utf8'), key);
          expect(verdict.valid).toBe(zendeskDocumentedVerify(signature, text, timestamp, key));
          expect(verdict.valid).toBe(kind === 'right');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('given another timestamp under a valid signature, then it is a mismatch', async () => {
    const signature = signatureOf(secret, NOW_ISO);
    await expect(check(signature, isoAt(NOW_SECONDS + 1))).resolves.toEqual(MISMATCH);
    // The timestamp is signed as sent: the same instant spelt with a fraction is another message.
    await expect(check(signature, '2023-11-14T22:13:20.000Z')).resolves.toEqual(MISMATCH);
  });

  itHoldsTheTimestampToTheTolerance((seconds, nowMs, tolerance) =>
    check(signatureOf(secret, isoAt(seconds)), isoAt(seconds), BODY, secret, nowMs, tolerance),
  );

  it('given a timestamp with a fraction of a second, then it is signed and judged as sent', async () => {
    const fraction = '2023-11-14T22:13:20.250Z';
    await expect(check(signatureOf(secret, fraction), fraction)).resolves.toEqual(VALID);
  });

  it('given either header missing, then missing_signature', async () => {
    const signature = signatureOf(secret, NOW_ISO);
    await expect(check(undefined)).resolves.toEqual(MISSING);
    await expect(judged({ zendeskWebhookSignature: signature })).resolves.toEqual(MISSING);
  });

  it('given a signature that is not the base64 of 32 bytes, or a timestamp not in Zendesk’s form or naming no real time, then malformed_signature', async () => {
    const signature = signatureOf(secret, NOW_ISO);
    const hex = createHmac('sha256', secret).update(NOW_ISO).update(BODY).digest('hex');
    for (const header of ['', signature.slice(0, -1), `${signature} `, hex, `v1,${signature}`, 'x'.repeat(5000)]) {
      await expect(check(header)).resolves.toEqual(MALFORMED);
    }
    for (const timestamp of [
      String(NOW_SECONDS),
      '2023-11-14 22:13:20Z',
      '2023-11-14T22:13:20',
      '2023-11-14T22:13:20+00:00',
      '2023-02-30T22:13:20Z',
      '2023-11-14T24:00:00Z',
      ' 2023-11-14T22:13:20Z',
      '2023-11-14T22:13:20.1234567890Z',
      '',
    ]) {
      await expect(check(signatureOf(secret, timestamp), timestamp)).resolves.toEqual(MALFORMED);
    }
  });

  itPassesTheSharedCases(zendesk, { form: /^[A-Za-z0-9+/]{43}=$/, described: 'a base64 secret as Zendesk shows' }, () =>
    randomBytes(32).toString('base64'),
  );
});
