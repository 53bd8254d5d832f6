import type { SignatureHeaders } from '@wts/application';
import { standardWebhooksSecret } from '@wts/domain';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'svix';
import {
  headersCheck,
  MALFORMED,
  MISMATCH,
  MISSING,
  MSG_ID,
  NOW_SECONDS,
  standardWebhooksHeaders,
  VALID,
} from './testing/signature-check.fixtures';
import { itHoldsTheTimestampToTheTolerance, itPassesTheSharedCases, type SignedSchemeCase } from './testing/signature-check.suite';

const secret = standardWebhooksSecret(randomBytes(24));
const BODY = Buffer.from('{"type":"user.created","data":{"id":"user_29w83sxmDNGwOuEthce5gg56FcC","name":"Zoë 🎉"}}', 'utf8');
const sign = (key: string, seconds: number, body: Buffer | string = BODY, id = MSG_ID): string =>
  new Webhook(key).sign(id, new Date(seconds * 1000), body);
const headersOf = (signature: string, ...rest: [seconds?: number, id?: string]): SignatureHeaders =>
  standardWebhooksHeaders('svix', signature, ...rest);
const check = headersCheck('svix', BODY, secret);
const svix: SignedSchemeCase = {
  scheme: 'svix',
  secret,
  body: BODY,
  signatureOf: (key, body) => sign(key, NOW_SECONDS, body),
  judge: (signature, body, key) => check(headersOf(signature), body, key),
};

describe('ProviderSignatureVerifier: Svix (svix)', () => {
  it("given a delivery signed by Svix's own sign, then it is valid", async () => {
    await expect(check(headersOf(sign(secret, NOW_SECONDS)))).resolves.toEqual(VALID);
  });

  it("given any secret, JSON body and message id, signed right or wrong, then the verdict is Svix's own Webhook.verify's (judged now, as it judges)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 24, maxLength: 64 }),
        // JSON: the library parses the payload once verified (and refuses one that is not).
        fc.json({ maxDepth: 3 }),
        fc.stringMatching(/^msg_[A-Za-z0-9]{1,30}$/),
        fc.constantFrom('right', 'other_secret', 'other_id', 'other_body'),
        async (keyBytes, text, id, kind) => {
          const key = standardWebhooksSecret(keyBytes);
          const nowMs = Date.now();
          const seconds = Math.floor(nowMs / 1000);
          const signature =
            kind === 'right'
              ? sign(key, seconds, text, id)
              : kind === 'other_secret'
                ? sign(standardWebhooksSecret(randomBytes(32)), seconds, text, id)
                : kind === 'other_id'
                  ? sign(key, seconds, text, `${id}x`)
                  : sign(key, seconds, `${text}x`, id);
          let libraryValid: boolean;
          try {
            new Webhook(key).verify(text, { 'svix-id': id, 'svix-timestamp': String(seconds), 'svix-signature': signature });
            libraryValid = true;
          } catch {
            libraryValid = false;
          }
          const verdict = await check(headersOf(signature, seconds, id), Buffer.from(text, 'utf8'), key, nowMs);
          expect(verdict.valid).toBe(libraryValid);
          expect(verdict.valid).toBe(kind === 'right');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('given another message id or time under a valid signature, then it is a mismatch', async () => {
    const valid = headersOf(sign(secret, NOW_SECONDS));
    await expect(check({ ...valid, svixId: 'msg_other' })).resolves.toEqual(MISMATCH);
    await expect(check({ ...valid, svixTimestamp: String(NOW_SECONDS + 1) })).resolves.toEqual(MISMATCH);
  });

  itHoldsTheTimestampToTheTolerance((seconds, nowMs, tolerance) =>
    check(headersOf(sign(secret, seconds), seconds), BODY, secret, nowMs, tolerance),
  );

  it('given several signatures (a rotation), then one valid is enough; none valid is a mismatch', async () => {
    const old = sign(standardWebhooksSecret(randomBytes(24)), NOW_SECONDS);
    await expect(check(headersOf(`${old} ${sign(secret, NOW_SECONDS)}`))).resolves.toEqual(VALID);
    await expect(check(headersOf(`${old} ${old}`))).resolves.toEqual(MISMATCH);
  });

  it("given a svix header missing — or the standard's unbranded webhook-* names instead — then missing_signature", async () => {
    const valid = headersOf(sign(secret, NOW_SECONDS));
    await expect(check({ ...valid, svixSignature: undefined })).resolves.toEqual(MISSING);
    await expect(check({ ...valid, svixTimestamp: undefined })).resolves.toEqual(MISSING);
    await expect(check({ ...valid, svixId: undefined })).resolves.toEqual(MISSING);
    await expect(
      check({ webhookId: valid.svixId, webhookTimestamp: valid.svixTimestamp, webhookSignature: valid.svixSignature }),
    ).resolves.toEqual(MISSING);
  });

  it('given a header not in the form (no v1, a bad timestamp, an empty id, too many signatures), then malformed_signature', async () => {
    const signature = sign(secret, NOW_SECONDS);
    await expect(check(headersOf(signature.slice(3)))).resolves.toEqual(MALFORMED);
    await expect(check({ ...headersOf(signature), svixTimestamp: '1e9' })).resolves.toEqual(MALFORMED);
    await expect(check(headersOf(signature, NOW_SECONDS, ''))).resolves.toEqual(MALFORMED);
    await expect(check(headersOf([...Array<string>(16).fill('v1,AAAA'), signature].join(' ')))).resolves.toEqual(MALFORMED);
  });

  itPassesTheSharedCases(svix, { form: /^whsec_[A-Za-z0-9+/]{32}$/, described: "a whsec_ secret in Svix's form" }, () =>
    standardWebhooksSecret(randomBytes(24)),
  );
});
