import { sign as githubSign } from '@octokit/webhooks-methods';
import type { SignatureHeaders, SignatureVerdict } from '@wts/application';
import { SIGNED_SCHEMES, type SignedScheme } from '@wts/contracts';
import {
  credentialProblem,
  metaCredentialOf,
  STANDARD_WEBHOOKS_SECRET_BYTES,
  standardWebhooksSecret,
  type ProviderCredentialInput,
} from '@wts/domain';
import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { ProviderSignatureVerifier } from './provider-signature.verifier';
import { signatureOf } from './standard-webhooks-signature.check';
import {
  delivery,
  expectDecoyInProviderForm,
  headerCheck,
  headersCheck,
  MALFORMED,
  MISMATCH,
  MISSING,
  MSG_ID,
  NOT_UTF8,
  NOW_MS,
  NOW_SECONDS,
  OUTSIDE,
  standardWebhooksHeaders,
  tampered,
  TOLERANCE,
  verifier,
} from './testing/signature-check.fixtures';

const BODY = Buffer.from('{"type":"user.created","data":{"name":"Zoë","emoji":"🎉"}}', 'utf8');

describe('ProviderSignatureVerifier: Standard Webhooks (standardwebhooks)', () => {
  const secret = standardWebhooksSecret(randomBytes(STANDARD_WEBHOOKS_SECRET_BYTES));
  const signature = (key: string, seconds: number, body: Buffer | string, id = MSG_ID): string =>
    new Webhook(key).sign(id, new Date(seconds * 1000), body);
  const headersOf = (signature: string, ...rest: [seconds?: number, id?: string]): SignatureHeaders =>
    standardWebhooksHeaders('webhook', signature, ...rest);
  const check = headersCheck('standard_webhooks', BODY, secret);

  it("given the standard's published example, when judged at its own timestamp, then it is valid", async () => {
    const example = {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      payload: '{"test": 2432232314}',
      signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const headers = headersOf(example.signature, example.timestamp, example.id);
    const judge = (payload: string, nowSeconds = example.timestamp): Promise<SignatureVerdict> =>
      check(headers, Buffer.from(payload), example.secret, nowSeconds * 1000);
    await expect(judge(example.payload)).resolves.toEqual({ valid: true });
    await expect(judge('{"test": 2432232315}')).resolves.toEqual(MISMATCH);
    await expect(judge(example.payload, example.timestamp + TOLERANCE + 1)).resolves.toEqual(OUTSIDE);
  });

  it("given a delivery signed by the library's own sign, then it is valid", async () => {
    await expect(check(headersOf(signature(secret, NOW_SECONDS, BODY)))).resolves.toEqual({ valid: true });
  });

  it('given a signature computed over the raw bytes (UTF-8 with a byte order mark), then it is valid: nothing is re-encoded', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), BODY]);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`${MSG_ID}.${NOW_SECONDS}.`).update(body).digest('base64');
    await expect(check(headersOf(`v1,${mac}`), body)).resolves.toEqual({ valid: true });
  });

  it('given the body with one byte changed, a wrong secret, or the old secret after a rotation, then it is a mismatch', async () => {
    const old = standardWebhooksSecret(randomBytes(STANDARD_WEBHOOKS_SECRET_BYTES));
    const valid = headersOf(signature(secret, NOW_SECONDS, BODY));
    await expect(check(valid, tampered(BODY))).resolves.toEqual(MISMATCH);
    await expect(check(valid, BODY, standardWebhooksSecret(randomBytes(STANDARD_WEBHOOKS_SECRET_BYTES)))).resolves.toEqual(MISMATCH);
    await expect(check(headersOf(signature(old, NOW_SECONDS, BODY)))).resolves.toEqual(MISMATCH);
    await expect(check(headersOf(signature(secret, NOW_SECONDS, BODY, 'msg_other')))).resolves.toEqual(MISMATCH);
    await expect(check(headersOf(signature(secret, NOW_SECONDS, BODY), NOW_SECONDS + 1))).resolves.toEqual(MISMATCH);
  });

  it('given timestamps at and beyond the tolerance both ways, then just inside is valid and just outside is refused', async () => {
    const at = (seconds: number, tolerance = TOLERANCE): Promise<SignatureVerdict> =>
      check(headersOf(signature(secret, seconds, BODY), seconds), BODY, secret, NOW_MS, tolerance);
    await expect(at(NOW_SECONDS - TOLERANCE)).resolves.toEqual({ valid: true });
    await expect(at(NOW_SECONDS + TOLERANCE)).resolves.toEqual({ valid: true });
    await expect(at(NOW_SECONDS - TOLERANCE - 1)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS + TOLERANCE + 1)).resolves.toEqual(OUTSIDE);
    await expect(at(0)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS, 0)).resolves.toEqual({ valid: true });
    await expect(at(NOW_SECONDS - 1, 0)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS + 60, 30)).resolves.toEqual(OUTSIDE);
  });

  it('given a header missing, then missing_signature', async () => {
    const valid = headersOf(signature(secret, NOW_SECONDS, BODY));
    await expect(check({ ...valid, webhookSignature: undefined })).resolves.toEqual(MISSING);
    await expect(check({ ...valid, webhookTimestamp: undefined })).resolves.toEqual(MISSING);
    await expect(check({ ...valid, webhookId: undefined })).resolves.toEqual(MISSING);
    await expect(check({ hubSignature256: valid.webhookSignature, stripeSignature: valid.webhookSignature })).resolves.toEqual(MISSING);
  });

  it.each(['1e9', '+1700000000', '-5', '', ' 1700000000', '1700000000 ', '1700000000.0', '0x6553f100', '１７００', '1'.repeat(16)])(
    'given webhook-timestamp %p, then malformed_signature',
    async (timestamp) => {
      await expect(check({ ...headersOf(signature(secret, NOW_SECONDS, BODY)), webhookTimestamp: timestamp })).resolves.toEqual(MALFORMED);
    },
  );

  it('given a signature header in another form, too long or with too many signatures, or an empty webhook-id, then malformed_signature', async () => {
    const valid = signature(secret, NOW_SECONDS, BODY);
    const malformed = [
      '',
      '   ',
      valid.slice(3),
      `v1a,${valid.slice(3)}`,
      `v2,${valid.slice(3)}`,
      `${valid} ${'v1,x'.padEnd(4096, 'A')}`,
      [...Array<string>(16).fill('v1,AAAA'), valid].join(' '),
    ];
    for (const header of malformed) await expect(check(headersOf(header))).resolves.toEqual(MALFORMED);
    await expect(check({ ...headersOf(valid), webhookId: '' })).resolves.toEqual(MALFORMED);
    await expect(check({ ...headersOf(valid), webhookId: 'm'.repeat(4097) })).resolves.toEqual(MALFORMED);
  });

  it('given several signatures, then one valid among them is enough, other versions are skipped, and none valid is a mismatch', async () => {
    const valid = signature(secret, NOW_SECONDS, BODY);
    const other = signature(standardWebhooksSecret(randomBytes(32)), NOW_SECONDS, BODY);
    await expect(check(headersOf(`${other} ${valid}`))).resolves.toEqual({ valid: true });
    await expect(check(headersOf(`v1a,c29tZSBlZDI1NTE5IHNpZ25hdHVyZQ== ${valid}  v1,short`))).resolves.toEqual({ valid: true });
    await expect(check(headersOf([...Array<string>(15).fill(other), valid].join(' ')))).resolves.toEqual({ valid: true });
    await expect(check(headersOf(`${other} v1,short v1,${'A'.repeat(200)} v1,`))).resolves.toEqual(MISMATCH);
    await expect(check(headersOf(`${valid}x`))).resolves.toEqual(MISMATCH);
    await expect(check(headersOf(`${valid.slice(0, -1)}`))).resolves.toEqual(MISMATCH);
  });

  it('given a body that is not UTF-8, then a mismatch, even under a signature the library computes for it', async () => {
    await expect(check(headersOf(signature(secret, NOW_SECONDS, NOT_UTF8)), NOT_UTF8)).resolves.toEqual(MISMATCH);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const raw = createHmac('sha256', key).update(`${MSG_ID}.${NOW_SECONDS}.`).update(NOT_UTF8).digest('base64');
    await expect(check(headersOf(`v1,${raw}`), NOT_UTF8)).resolves.toEqual(MISMATCH);
  });

  it('given an empty body, then it is never valid, though the library signs it', async () => {
    await expect(check(headersOf(signature(secret, NOW_SECONDS, '')), Buffer.alloc(0))).resolves.toEqual(MISMATCH);
  });

  it('given a stored secret the library refuses, then a mismatch rather than an error', async () => {
    for (const key of ['', 'whsec_', 'whsec_!!not base64!!']) {
      await expect(check(headersOf(signature(secret, NOW_SECONDS, BODY)), BODY, key)).resolves.toEqual(MISMATCH);
    }
  });

  it("given any message id, timestamp, key and UTF-8 body, then node:crypto's signature is the library's own sign, byte for byte", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_.-]{1,60}$/),
        fc.integer({ min: 0, max: 9_999_999_999 }),
        fc.uint8Array({ minLength: 24, maxLength: 64 }),
        fc.string({ unit: 'binary', maxLength: 2000 }),
        (messageId, seconds, key, text) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const body = Buffer.from(text, 'utf8');
          expect(`v1,${signatureOf(secret, messageId, seconds, body)}`).toBe(
            new Webhook(secret).sign(messageId, new Date(seconds * 1000), text),
          );
        },
      ),
      { numRuns: 500, seed: 22_001 },
    );
  });

  it("given valid and invalid deliveries signed now, then the library's own verify agrees with every verdict", async () => {
    const body = Buffer.from('{"type":"invoice.paid","amount":2432232314}');
    const now = Math.floor(Date.now() / 1000);
    const good = signature(secret, now, body);
    const cases: Array<{ headers: SignatureHeaders; body: Buffer; key: string }> = [
      { headers: headersOf(good, now), body, key: secret },
      { headers: headersOf(`${signature(secret, now, body, 'msg_x')} ${good}`, now), body, key: secret },
      { headers: headersOf(signature(secret, now - 120, body), now - 120), body, key: secret },
      { headers: headersOf(signature(secret, now + 120, body), now + 120), body, key: secret },
      { headers: headersOf(good, now), body: tampered(body), key: secret },
      { headers: headersOf(good, now), body, key: standardWebhooksSecret(randomBytes(32)) },
      { headers: headersOf(good, now + 1), body, key: secret },
      { headers: headersOf(`v1a,${good.slice(3)}`, now), body, key: secret },
      { headers: headersOf(good, now - 3600), body, key: secret },
    ];
    for (const { headers, body: payload, key } of cases) {
      const ours = await verifier.verify(delivery('standard_webhooks', key, payload, headers, Date.now(), 300));
      const theirs = libraryAccepts(key, payload, headers);
      expect({ headers, ours: ours.valid }).toEqual({ headers, ours: theirs });
    }
    expect(cases.filter((c) => libraryAccepts(c.key, c.body, c.headers))).toHaveLength(4);
  });

  it('given the decoy, then it is a secret in the standard form the library takes, and a valid delivery is a mismatch against it', async () => {
    const decoy = await expectDecoyInProviderForm('standard_webhooks', /^whsec_[A-Za-z0-9+/]{43}=$/, secret, (key, against) =>
      check(headersOf(signature(key, NOW_SECONDS, BODY)), BODY, against),
    );
    expect(() => new Webhook(decoy)).not.toThrow();
  });

  function libraryAccepts(key: string, body: Buffer, headers: SignatureHeaders): boolean {
    try {
      new Webhook(key).verify(body, {
        'webhook-id': headers.webhookId ?? '',
        'webhook-timestamp': headers.webhookTimestamp ?? '',
        'webhook-signature': headers.webhookSignature ?? '',
      });
      return true;
    } catch {
      return false;
    }
  }
});

describe('ProviderSignatureVerifier: GitHub (@octokit/webhooks-methods)', () => {
  const secret = randomBytes(24).toString('base64url');
  const check = headerCheck('github', 'hubSignature256', BODY, secret);
  const hexOf = (key: string, body: Buffer): string => createHmac('sha256', key).update(body).digest('hex');

  it("given GitHub's published example, then it is valid, and a changed payload is not", async () => {
    const example = {
      secret: "It's a Secret to Everybody",
      payload: 'Hello, World!',
      signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    };
    await expect(check(example.signature, Buffer.from(example.payload), example.secret)).resolves.toEqual({ valid: true });
    await expect(check(example.signature, Buffer.from('Hello, World?'), example.secret)).resolves.toEqual(MISMATCH);
  });

  it("given a delivery signed by the library's own sign, then it is valid at any time: GitHub signs no timestamp", async () => {
    const header = await githubSign(secret, BODY.toString('utf8'));
    await expect(check(header)).resolves.toEqual({ valid: true });
    await expect(check(header, BODY, secret, 0)).resolves.toEqual({ valid: true });
    await expect(check(header, BODY, secret, NOW_MS + 365 * 24 * 3600 * 1000)).resolves.toEqual({ valid: true });
  });

  it('given a signature computed over the raw bytes (UTF-8 with a byte order mark), then it is valid', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), BODY]);
    await expect(check(`sha256=${hexOf(secret, body)}`, body)).resolves.toEqual({ valid: true });
  });

  it('given the body with one byte changed, a wrong secret, or the old secret after a rotation, then it is a mismatch', async () => {
    const header = await githubSign(secret, BODY.toString('utf8'));
    await expect(check(header, tampered(BODY))).resolves.toEqual(MISMATCH);
    await expect(check(header, BODY, randomBytes(24).toString('base64url'))).resolves.toEqual(MISMATCH);
    const old = randomBytes(24).toString('base64url');
    await expect(check(await githubSign(old, BODY.toString('utf8')))).resolves.toEqual(MISMATCH);
  });

  it('given no X-Hub-Signature-256, then missing_signature', async () => {
    await expect(verifier.verify(delivery('github', secret, BODY, { stripeSignature: 't=1,v1=' + '0'.repeat(64) }))).resolves.toEqual(
      MISSING,
    );
  });

  it('given a SHA-1 signature the library would fall back to, then malformed_signature, never checked', async () => {
    const sha1 = await githubSign({ secret, algorithm: 'sha1' }, BODY.toString('utf8'));
    expect(sha1).toMatch(/^sha1=[0-9a-f]{40}$/);
    await expect(check(sha1)).resolves.toEqual(MALFORMED);
  });

  it('given a header not in the form sha256=<64 lowercase hex>, then malformed_signature', async () => {
    const hex = hexOf(secret, BODY);
    const malformed = [
      '',
      hex,
      `sha256=${hex.toUpperCase()}`,
      `SHA256=${hex}`,
      `sha256=${hex.slice(1)}`,
      `sha256=${hex}0`,
      `sha256=${hex} `,
      ` sha256=${hex}`,
      `sha256= ${hex.slice(1)}`,
      `sha256=${hex}, sha256=${hex}`,
      `sha256=${hex} sha256=${hex}`,
      `sha256=${'x'.repeat(8192)}`,
    ];
    for (const header of malformed) await expect(check(header)).resolves.toEqual(MALFORMED);
  });

  it('given several signatures in the header, then it is malformed: GitHub sends exactly one', async () => {
    const valid = await githubSign(secret, BODY.toString('utf8'));
    await expect(check(`${valid},sha256=${'0'.repeat(64)}`)).resolves.toEqual(MALFORMED);
    await expect(check(`sha256=${'0'.repeat(64)}`)).resolves.toEqual(MISMATCH);
  });

  it('given a body that is not UTF-8, then a mismatch, whether signed over its bytes or over its decoded text', async () => {
    await expect(check(`sha256=${hexOf(secret, NOT_UTF8)}`, NOT_UTF8)).resolves.toEqual(MISMATCH);
    await expect(check(await githubSign(secret, NOT_UTF8.toString('utf8')), NOT_UTF8)).resolves.toEqual(MISMATCH);
  });

  it('given an empty body or an empty stored secret, then a mismatch rather than the library’s TypeError', async () => {
    await expect(check(`sha256=${hexOf(secret, Buffer.alloc(0))}`, Buffer.alloc(0))).resolves.toEqual(MISMATCH);
    await expect(check(`sha256=${createHmac('sha256', '').update(BODY).digest('hex')}`, BODY, '')).resolves.toEqual(MISMATCH);
  });

  it('given the decoy, then it is a 32-character secret GitHub would take, and a valid delivery is a mismatch against it', async () => {
    await expectDecoyInProviderForm('github', /^[A-Za-z0-9_-]{32}$/, secret, async (key, decoy) =>
      check(await githubSign(key, BODY.toString('utf8')), BODY, decoy),
    );
  });
});

describe('ProviderSignatureVerifier: Stripe (stripe)', () => {
  const secret = 'whsec_' + randomBytes(24).toString('hex');
  const PAYLOAD = Buffer.from(JSON.stringify({ id: 'evt_1Nq2', object: 'event', type: 'payment_intent.succeeded' }, null, 2));
  const headerOf = (key: string, timestamp: number, payload: Buffer | string = PAYLOAD): string =>
    Stripe.webhooks.generateTestHeaderString({ payload: payload.toString(), secret: key, timestamp });
  const check = headerCheck('stripe', 'stripeSignature', PAYLOAD, secret);
  const v1Of = (header: string): string => header.split(',v1=')[1]!;

  it("given a delivery signed by Stripe's own generateTestHeaderString, then it is valid", async () => {
    const header = headerOf(secret, NOW_SECONDS);
    expect(header).toMatch(new RegExp(`^t=${NOW_SECONDS},v1=[0-9a-f]{64}$`));
    await expect(check(header)).resolves.toEqual({ valid: true });
  });

  it("given any secret, timestamp and UTF-8 body, and one to four v1 signatures right or wrong, then the verdict is the library's own verifyHeader's", async () => {
    const library = Stripe.webhooks.signature!;
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^whsec_[A-Za-z0-9]{1,64}$/),
        fc.integer({ min: 1, max: 9_999_999_999 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 2000 }),
        fc.array(fc.constantFrom('right', 'other_time', 'other_secret'), { minLength: 1, maxLength: 4 }),
        async (key, seconds, text, kinds) => {
          const v1 = (signer: string, at: number): string => v1Of(headerOf(signer, at, text));
          const signatures = kinds.map((kind) =>
            kind === 'right' ? v1(key, seconds) : kind === 'other_time' ? v1(key, seconds + 1) : v1(`${key}x`, seconds),
          );
          const header = [`t=${seconds}`, ...signatures.map((signature) => `v1=${signature}`)].join(',');
          let libraryValid: boolean;
          try {
            // Tolerance 0: the library checks no timestamp; ours is judged at the signed time.
            libraryValid = library.verifyHeader(text, header, key, 0, undefined, seconds * 1000);
          } catch {
            libraryValid = false;
          }
          const verdict = await check(header, Buffer.from(text, 'utf8'), key, seconds * 1000);
          expect(verdict.valid).toBe(libraryValid);
          expect(verdict.valid).toBe(kinds.includes('right'));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('given a signature computed over the raw bytes (UTF-8 with a byte order mark), then it is valid: the body is not decoded the lossy way', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), PAYLOAD]);
    const mac = createHmac('sha256', secret).update(`${NOW_SECONDS}.`).update(body).digest('hex');
    await expect(check(`t=${NOW_SECONDS},v1=${mac}`, body)).resolves.toEqual({ valid: true });
  });

  it('given the body with one byte changed, a wrong secret, or the old secret after a rotation, then it is a mismatch', async () => {
    const header = headerOf(secret, NOW_SECONDS);
    await expect(check(header, tampered(PAYLOAD))).resolves.toEqual(MISMATCH);
    await expect(check(header, PAYLOAD, 'whsec_' + randomBytes(24).toString('hex'))).resolves.toEqual(MISMATCH);
    const old = 'whsec_' + randomBytes(24).toString('hex');
    await expect(check(headerOf(old, NOW_SECONDS))).resolves.toEqual(MISMATCH);
    await expect(check(`t=${NOW_SECONDS + 1},v1=${v1Of(header)}`)).resolves.toEqual(MISMATCH);
  });

  it('given timestamps at and beyond the tolerance both ways, then just inside is valid and just outside is refused (the library alone refuses only old ones)', async () => {
    const at = (seconds: number, tolerance = TOLERANCE): Promise<SignatureVerdict> =>
      check(headerOf(secret, seconds), PAYLOAD, secret, NOW_MS, tolerance);
    await expect(at(NOW_SECONDS - TOLERANCE)).resolves.toEqual({ valid: true });
    await expect(at(NOW_SECONDS + TOLERANCE)).resolves.toEqual({ valid: true });
    await expect(at(NOW_SECONDS - TOLERANCE - 1)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS + TOLERANCE + 1)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS + 100_000)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_SECONDS, 0)).resolves.toEqual({ valid: true });
    await expect(at(NOW_SECONDS - 1, 0)).resolves.toEqual(OUTSIDE);
  });

  it('given no Stripe-Signature, then missing_signature', async () => {
    await expect(check(undefined)).resolves.toEqual(MISSING);
    await expect(verifier.verify(delivery('stripe', secret, PAYLOAD, { hubSignature256: 'sha256=' + '0'.repeat(64) }))).resolves.toEqual(
      MISSING,
    );
  });

  it('given a header not in Stripe’s form, too long or with too many signatures, then malformed_signature', async () => {
    const v1 = v1Of(headerOf(secret, NOW_SECONDS));
    const malformed = [
      '',
      'bad_header',
      `v1=${v1}`,
      `t=,v1=${v1}`,
      `t=abc,v1=${v1}`,
      `t=1e9,v1=${v1}`,
      `t=+${NOW_SECONDS},v1=${v1}`,
      `t=${NOW_SECONDS}.0,v1=${v1}`,
      `t=${NOW_SECONDS}=1,v1=${v1}`,
      `t=${'1'.repeat(16)},v1=${v1}`,
      `t=${NOW_SECONDS},t=${NOW_SECONDS},v1=${v1}`,
      `t=${NOW_SECONDS}`,
      headerOf(secret, NOW_SECONDS).replace(',v1=', ',v0='),
      `t=${NOW_SECONDS},v1=${v1.toUpperCase()}`,
      `t=${NOW_SECONDS},v1=${v1.slice(1)}`,
      `t=${NOW_SECONDS},v1=`,
      `t=${NOW_SECONDS},v1=${v1},v1=potato`,
      `t=${NOW_SECONDS}, v1=${v1}`,
      `t=${NOW_SECONDS},v1=${v1},x=${'y'.repeat(4096)}`,
      [`t=${NOW_SECONDS}`, ...Array<string>(16).fill(`v1=${'0'.repeat(64)}`), `v1=${v1}`].join(','),
    ];
    for (const header of malformed) await expect(check(header)).resolves.toEqual(MALFORMED);
  });

  it('given several v1 signatures, then one matching is enough (a secret roll sends both), and none matching is a mismatch', async () => {
    const old = 'whsec_' + randomBytes(24).toString('hex');
    const mine = v1Of(headerOf(secret, NOW_SECONDS));
    const theirs = v1Of(headerOf(old, NOW_SECONDS));
    await expect(check(`t=${NOW_SECONDS},v1=${theirs},v1=${mine}`)).resolves.toEqual({ valid: true });
    await expect(check(`t=${NOW_SECONDS},v1=${mine},v0=${'a'.repeat(64)},v1=${theirs}`)).resolves.toEqual({ valid: true });
    await expect(check(`t=${NOW_SECONDS},v1=${theirs},v1=${'0'.repeat(64)}`)).resolves.toEqual(MISMATCH);
    await expect(check(`t=${NOW_SECONDS},v1=${mine}`, PAYLOAD, old)).resolves.toEqual(MISMATCH);
  });

  it('given Stripe’s documented example header (no secret or payload is published for it), then its form is taken and it is a mismatch', async () => {
    const documented =
      't=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39';
    await expect(check(documented, PAYLOAD, secret, 1492774577 * 1000)).resolves.toEqual(MISMATCH);
    await expect(check(documented, PAYLOAD, secret, NOW_MS)).resolves.toEqual(OUTSIDE);
  });

  it('given a body that is not UTF-8, then a mismatch, whether signed over its bytes or over its decoded text', async () => {
    const raw = createHmac('sha256', secret).update(`${NOW_SECONDS}.`).update(NOT_UTF8).digest('hex');
    await expect(check(`t=${NOW_SECONDS},v1=${raw}`, NOT_UTF8)).resolves.toEqual(MISMATCH);
    await expect(check(headerOf(secret, NOW_SECONDS, NOT_UTF8.toString('utf8')), NOT_UTF8)).resolves.toEqual(MISMATCH);
  });

  it('given an empty body, or an empty or blank stored secret, then a mismatch rather than the library’s error', async () => {
    await expect(check(headerOf(secret, NOW_SECONDS, ''), Buffer.alloc(0))).resolves.toEqual(MISMATCH);
    for (const key of ['', ' \t']) await expect(check(headerOf(secret, NOW_SECONDS), PAYLOAD, key)).resolves.toEqual(MISMATCH);
  });

  it('given a refusal, then the verdict carries only the reason: nothing of the header or the payload (the library’s message has both)', async () => {
    const marker = 'PAYLOAD-MARKER-4f1c';
    const body = Buffer.from(`{"id":"evt_1","note":"${marker}"}`);
    const header = `t=${NOW_SECONDS},v1=${'c'.repeat(64)}`;
    const verdict = await check(header, body);
    expect(verdict).toEqual(MISMATCH);
    expect(Object.keys(verdict).sort()).toEqual(['reason', 'valid']);
    expect(JSON.stringify(verdict)).not.toContain(marker);
  });

  it('given the decoy, then it is a whsec_ secret of 32 letters and digits, and a valid delivery is a mismatch against it', async () => {
    await expectDecoyInProviderForm('stripe', /^whsec_[A-Za-z0-9]{32}$/, secret, (key, decoy) =>
      check(headerOf(key, NOW_SECONDS), PAYLOAD, decoy),
    );
  });
});

describe('ProviderSignatureVerifier: every scheme', () => {
  const schemes: readonly SignedScheme[] = SIGNED_SCHEMES;

  it('given the decoys, then each is made once per verifier and no two verifiers share one', () => {
    const other = new ProviderSignatureVerifier();
    for (const scheme of schemes) {
      expect(verifier.decoySecret(scheme)).toBe(verifier.decoySecret(scheme));
      expect(other.decoySecret(scheme)).not.toBe(verifier.decoySecret(scheme));
    }
  });

  it("given each scheme's decoy, then it is a credential in that scheme's own form: one its credential rules take", () => {
    // The sealed form of each scheme's credential, as enable stores it: a secret; Discord's public key,
    // Graph's clientState, Meta's secret and verify token together.
    const asInput = (scheme: SignedScheme, decoy: string): ProviderCredentialInput => {
      if (scheme === 'discord') return { publicKey: decoy };
      if (scheme === 'microsoft_graph') return { clientState: decoy };
      if (scheme === 'meta') return metaCredentialOf(decoy) ?? {};
      return { secret: decoy };
    };
    for (const scheme of schemes)
      expect({ scheme, problem: credentialProblem(scheme, asInput(scheme, verifier.decoySecret(scheme))) }).toEqual({
        scheme,
        problem: undefined,
      });
  });

  it('given an unknown scheme (a caller bug), then a mismatch rather than an error', async () => {
    const unknown = delivery('bearer' as SignedScheme, 'secret', BODY, { hubSignature256: 'sha256=' + '0'.repeat(64) });
    await expect(verifier.verify(unknown)).resolves.toEqual(MISMATCH);
  });

  it('given any headers a client can send (latin1, long, odd), then a refusal and never a throw', async () => {
    const latin1 = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)), maxLength: 200 });
    const header = fc.oneof(fc.constant(undefined), latin1, fc.string({ unit: 'grapheme', maxLength: 50 }), fc.constant('x'.repeat(5000)));
    const lenient = fc.oneof(
      header,
      latin1.map((text) => `v1,${text}`),
      latin1.map((text) => `t=${NOW_SECONDS},v1=${text}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...schemes),
        fc.uint8Array({ maxLength: 64 }),
        fc.record({
          webhookId: header,
          webhookTimestamp: fc.oneof(header, fc.constant(String(NOW_SECONDS))),
          webhookSignature: lenient,
          hubSignature256: header,
          stripeSignature: lenient,
          shopifyHmacSha256: header,
          gitlabToken: header,
          linearSignature: header,
          sentryHookSignature: header,
          pagerdutySignature: fc.oneof(
            header,
            latin1.map((text) => `v1=${text}`),
          ),
          zendeskWebhookSignature: header,
          zendeskWebhookSignatureTimestamp: fc.oneof(header, fc.constant('2023-11-14T22:13:20Z')),
          svixId: header,
          svixTimestamp: fc.oneof(header, fc.constant(String(NOW_SECONDS))),
          svixSignature: lenient,
        }),
        async (scheme, body, headers) => {
          const verdict = await verifier.verify(delivery(scheme, verifier.decoySecret(scheme), Buffer.from(body), headers));
          expect(verdict.valid).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
