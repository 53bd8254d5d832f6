import { sign as octokitSign } from '@octokit/webhooks-methods';
import type { SignatureHeaders, SignatureVerdict } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import { sealedCredential } from '@wts/domain';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { delivery, MALFORMED, MISMATCH, MISSING, NOW_SECONDS, OUTSIDE, VALID, verifier } from './testing/signature-check.fixtures';
import { anyHeaderValue, itRefusesAnythingAgainstTheDecoys } from './testing/signature-check.suite';

/**
 * Twitch, X, Meta and Microsoft Graph checked as their documentation has it (Meta's
 * X-Hub-Signature-256 is GitHub's form: Octokit's `sign` is its reference), a refusal — never a
 * throw — on anything else.
 */
const BODY = Buffer.from('{"subscription":{"type":"channel.follow"},"event":{"user_name":"Zoë 🎉"}}', 'utf8');

function check(scheme: SignedScheme, secret: string, headers: SignatureHeaders, body: Buffer = BODY): Promise<SignatureVerdict> {
  return verifier.verify(delivery(scheme, secret, body, headers));
}

describe('Twitch EventSub (Twitch-Eventsub-Message-Signature)', () => {
  const secret = 'a subscription secret of 10 to 100 ASCII';
  const ID = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
  const rfc3339 = (seconds: number, fraction = '.123456789'): string => new Date(seconds * 1000).toISOString().replace('.000', fraction);
  /** The documented HMAC: `sha256=` + hex HMAC-SHA256 of message id + timestamp + raw body. */
  const signature = (timestamp: string, body: Buffer = BODY, id = ID): string =>
    'sha256=' +
    createHmac('sha256', secret)
      .update(id + timestamp + body.toString())
      .digest('hex');
  const headers = (timestamp: string, sig = signature(timestamp), id = ID): SignatureHeaders => ({
    twitchSignature: sig,
    twitchMessageId: id,
    twitchTimestamp: timestamp,
  });

  it('accepts the documented signature over a nanosecond RFC 3339 timestamp; refuses any other', async () => {
    const now = rfc3339(NOW_SECONDS);
    await expect(check('twitch', secret, headers(now))).resolves.toEqual(VALID);
    await expect(check('twitch', secret, headers(rfc3339(NOW_SECONDS, '')))).resolves.toEqual(VALID);
    await expect(check('twitch', secret, headers(now, signature(now), 'another-id'))).resolves.toEqual(MISMATCH);
    await expect(check('twitch', secret, headers(now), Buffer.from(BODY.toString() + ' '))).resolves.toEqual(MISMATCH);
    await expect(check('twitch', 'another secret, same form', headers(now))).resolves.toEqual(MISMATCH);
  });

  it("holds the timestamp to Twitch's ten minutes even under a shorter tolerance", async () => {
    const nineMinutes = rfc3339(NOW_SECONDS - 540);
    await expect(check('twitch', secret, headers(nineMinutes))).resolves.toEqual(VALID);
    await expect(check('twitch', secret, headers(rfc3339(NOW_SECONDS - 601)))).resolves.toEqual(OUTSIDE);
    await expect(check('twitch', secret, headers(rfc3339(NOW_SECONDS + 601)))).resolves.toEqual(OUTSIDE);
  });

  it('refuses missing and malformed headers', async () => {
    const now = rfc3339(NOW_SECONDS);
    await expect(check('twitch', secret, { twitchSignature: signature(now), twitchTimestamp: now })).resolves.toEqual(MISSING);
    await expect(check('twitch', secret, headers('1700000000', signature('1700000000')))).resolves.toEqual(MALFORMED);
    await expect(check('twitch', secret, headers(now, signature(now).replace('sha256=', 'sha1=')))).resolves.toEqual(MALFORMED);
    await expect(check('twitch', secret, headers(now, signature(now), ''))).resolves.toEqual(MALFORMED);
  });
});

describe('X (x-twitter-webhooks-signature)', () => {
  const secret = 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu';
  const signature = (body: Buffer, key = secret): string => 'sha256=' + createHmac('sha256', key).update(body).digest('base64');

  it('accepts sha256= and the base64 HMAC-SHA256 of the body under the consumer secret', async () => {
    await expect(check('x', secret, { xSignature: signature(BODY) })).resolves.toEqual(VALID);
    await expect(check('x', secret, { xSignature: signature(BODY, 'another consumer secret') })).resolves.toEqual(MISMATCH);
    await expect(check('x', secret, { xSignature: signature(BODY) }, Buffer.from(BODY.toString() + ' '))).resolves.toEqual(MISMATCH);
    await expect(check('x', secret, {})).resolves.toEqual(MISSING);
    await expect(check('x', secret, { xSignature: signature(BODY).replace('sha256=', '') })).resolves.toEqual(MALFORMED);
    await expect(check('x', secret, { xSignature: 'sha256=' + createHmac('sha256', secret).update(BODY).digest('hex') })).resolves.toEqual(
      MALFORMED,
    );
  });
});

describe('Meta (X-Hub-Signature-256 with the App Secret)', () => {
  const appSecret = '4e4d2c3b8f0a47c1a2b3c4d5e6f7a8b9';
  const credential = sealedCredential('meta', { secret: appSecret, verifyToken: 'my-verify-token' });

  it("accepts GitHub's form under the app secret (Octokit's sign is the reference), nothing else", async () => {
    const signature = await octokitSign(appSecret, BODY.toString('utf8'));
    await expect(check('meta', credential, { hubSignature256: signature })).resolves.toEqual(VALID);
    await expect(check('meta', credential, { hubSignature256: await octokitSign('another app secret', BODY.toString()) })).resolves.toEqual(
      MISMATCH,
    );
    await expect(check('meta', credential, {})).resolves.toEqual(MISSING);
    await expect(check('meta', credential, { hubSignature256: signature.replace('sha256=', 'sha1=') })).resolves.toEqual(MALFORMED);
    // The verify token is no signing key.
    const byToken = 'sha256=' + createHmac('sha256', 'my-verify-token').update(BODY).digest('hex');
    await expect(check('meta', credential, { hubSignature256: byToken })).resolves.toEqual(MISMATCH);
    // A stored credential not in Meta's form is checked against the decoy.
    await expect(check('meta', appSecret, { hubSignature256: await octokitSign(appSecret, BODY.toString()) })).resolves.toEqual(MISMATCH);
  });
});

describe('Microsoft Graph (clientState in every notification)', () => {
  const clientState = 'secretClientValue-0123';
  const notifications = (...states: (string | undefined)[]): Buffer =>
    Buffer.from(JSON.stringify({ value: states.map((state) => ({ changeType: 'created', resource: 'Users/x', clientState: state })) }));

  it("accepts a batch whose notifications all carry the webhook's clientState", async () => {
    await expect(check('microsoft_graph', clientState, {}, notifications(clientState))).resolves.toEqual(VALID);
    await expect(check('microsoft_graph', clientState, {}, notifications(clientState, clientState))).resolves.toEqual(VALID);
  });

  it('refuses another clientState, a batch that disagrees, none at all, and bodies not in Graph’s shape', async () => {
    await expect(check('microsoft_graph', clientState, {}, notifications('another-state-value'))).resolves.toEqual(MISMATCH);
    await expect(check('microsoft_graph', clientState, {}, notifications(clientState, 'another-state-value'))).resolves.toEqual(MISMATCH);
    await expect(check('microsoft_graph', clientState, {}, notifications(undefined))).resolves.toEqual(MISSING);
    await expect(check('microsoft_graph', clientState, {}, Buffer.from('{"value":[]}'))).resolves.toEqual(MISSING);
    for (const body of ['not json', '[]', '{"value":{}}', `{"clientState":"${clientState}"}`]) {
      await expect(check('microsoft_graph', clientState, {}, Buffer.from(body))).resolves.toEqual(MALFORMED);
    }
  });
});

describe('Twitch, X, Meta and Graph: anything a client can send', () => {
  const header = anyHeaderValue((latin1) => [latin1.map((text) => `sha256=${text}`)]);
  itRefusesAnythingAgainstTheDecoys(
    ['twitch', 'x', 'meta', 'microsoft_graph'],
    fc.record({
      twitchSignature: header,
      twitchMessageId: header,
      twitchTimestamp: header,
      xSignature: header,
      hubSignature256: header,
    }),
    fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      fc.json().map((text) => Buffer.from(text)),
    ),
  );
});
