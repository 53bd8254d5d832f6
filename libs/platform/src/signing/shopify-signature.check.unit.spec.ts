import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';

import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { delivery, headerCheck, MALFORMED, MISMATCH, MISSING, VALID, verifier } from './testing/signature-check.fixtures';
import { itPassesTheSharedCases, type SignedSchemeCase } from './testing/signature-check.suite';

// The library's Node adapter, loaded for its effect; required (not imported) so the type checker
// does not compile its TypeScript source, which the library ships and which does not pass this project's strict settings.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('@shopify/shopify-api/adapters/node');

const secret = 'shpss_' + randomBytes(16).toString('hex');
const BODY = Buffer.from(JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', note: 'Zoë 🎉' }), 'utf8');
const hmacOf = (key: string, body: Buffer | string): string => createHmac('sha256', key).update(body).digest('base64');
const check = headerCheck('shopify', 'shopifyHmacSha256', BODY, secret);
const shopify: SignedSchemeCase = { scheme: 'shopify', secret, body: BODY, signatureOf: hmacOf, judge: check };

/** `@shopify/shopify-api` v13's own verdict on a webhook request (with every header it requires). */
async function libraryValid(key: string, body: string, hmac: string): Promise<boolean> {
  const api = shopifyApi({
    apiKey: 'test-app',
    apiSecretKey: key,
    hostName: 'app.example.com',
    apiVersion: ApiVersion.January25,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: async () => undefined },
  });
  const headers = {
    'x-shopify-hmac-sha256': hmac,
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': 'shop.myshopify.com',
    'x-shopify-api-version': '2025-01',
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
  };
  const result = await api.webhooks.validate({ rawBody: body, rawRequest: { headers, method: 'POST', url: '/' }, rawResponse: {} });
  return result.valid;
}

describe('ProviderSignatureVerifier: Shopify (@shopify/shopify-api)', () => {
  it("given a delivery signed as Shopify signs, then it is valid, and so says Shopify's own validate", async () => {
    const hmac = hmacOf(secret, BODY);
    await expect(check(hmac)).resolves.toEqual(VALID);
    await expect(libraryValid(secret, BODY.toString('utf8'), hmac)).resolves.toBe(true);
  });

  it("given any secret and UTF-8 body, and a signature right or wrong, then the verdict is the library's webhooks.validate's", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^(?:shpss_)?[0-9a-f]{32}$/),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 2000 }),
        fc.constantFrom('right', 'other_secret', 'other_body'),
        async (key, text, kind) => {
          const hmac = kind === 'right' ? hmacOf(key, text) : kind === 'other_secret' ? hmacOf(`${key}x`, text) : hmacOf(key, `${text} `);
          const verdict = await check(hmac, Buffer.from(text, 'utf8'), key);
          expect(verdict.valid).toBe(await libraryValid(key, text, hmac));
          expect(verdict.valid).toBe(kind === 'right');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('given no X-Shopify-Hmac-Sha256, then missing_signature', async () => {
    await expect(check(undefined)).resolves.toEqual(MISSING);
    await expect(verifier.verify(delivery('shopify', secret, BODY, { hubSignature256: `sha256=${'0'.repeat(64)}` }))).resolves.toEqual(
      MISSING,
    );
  });

  it('given a header that is not the base64 of 32 bytes, then malformed_signature, never checked', async () => {
    const hmac = hmacOf(secret, BODY);
    const malformed = [
      '',
      hmac.slice(0, -1),
      `${hmac}=`,
      ` ${hmac}`,
      `${hmac} `,
      createHmac('sha256', secret).update(BODY).digest('hex'),
      createHmac('sha256', secret).update(BODY).digest('base64url'),
      `sha256=${hmac}`,
      `${hmac},${hmac}`,
      'x'.repeat(5000),
    ];
    for (const header of malformed) await expect(check(header)).resolves.toEqual(MALFORMED);
  });

  itPassesTheSharedCases(
    shopify,
    { form: /^shpss_[0-9a-f]{32}$/, described: "an app client secret in Shopify's form" },
    () => 'shpss_' + randomBytes(16).toString('hex'),
  );

  it('given an empty secret, then a mismatch even under its own HMAC', async () => {
    await expect(check(hmacOf('', BODY), BODY, '')).resolves.toEqual(MISMATCH);
  });
});
