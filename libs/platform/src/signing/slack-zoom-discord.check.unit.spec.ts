import { isValidSlackRequest } from '@slack/bolt';
import type { SignatureHeaders, SignatureVerdict } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import { verifyKey } from 'discord-interactions';
import fc from 'fast-check';
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { delivery, MALFORMED, MISMATCH, MISSING, NOW_MS, NOW_SECONDS, OUTSIDE, VALID, verifier } from './testing/signature-check.fixtures';
import { anyHeaderValue, itRefusesAnythingAgainstTheDecoys } from './testing/signature-check.suite';

/**
 * Slack, Zoom and Discord checked as their documentation (and, where one exists, their library:
 * `@slack/bolt`'s isValidSlackRequest, `discord-interactions`' verifyKey) has them: the same
 * verdict on generated deliveries, and a refusal — never a throw — on anything else.
 */
const BODY = Buffer.from('{"type":"event_callback","event_id":"Ev1","event":{"type":"app_mention","text":"Zoë 🎉"}}', 'utf8');

function check(
  scheme: SignedScheme,
  secret: string,
  headers: SignatureHeaders,
  body: Buffer = BODY,
  nowMs = NOW_MS,
): Promise<SignatureVerdict> {
  return verifier.verify(delivery(scheme, secret, body, headers, nowMs));
}

/** The documented v0 signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<body>`. */
const v0 = (secret: string, timestamp: number | string, body: Buffer | string): string =>
  'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body.toString()}`).digest('hex');

describe('Slack (X-Slack-Signature v0)', () => {
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const headers = (signature: string | undefined, seconds: number | string = NOW_SECONDS): SignatureHeaders => ({
    slackSignature: signature,
    slackTimestamp: String(seconds),
  });
  const bolt = (signature: string, seconds: number, body: string, nowMs = NOW_MS): boolean =>
    isValidSlackRequest({
      signingSecret: secret,
      body,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': seconds },
      nowMilliseconds: nowMs,
    });

  it('agrees with @slack/bolt on signed, tampered, foreign and stale requests', async () => {
    const signed = v0(secret, NOW_SECONDS, BODY);
    const cases: [string, number, Buffer][] = [
      [signed, NOW_SECONDS, BODY],
      [signed, NOW_SECONDS, Buffer.from(BODY.toString().replace('hi', 'ho') + ' ')],
      [v0('another-secret-of-the-same-length', NOW_SECONDS, BODY), NOW_SECONDS, BODY],
      [v0(secret, NOW_SECONDS - 299, BODY), NOW_SECONDS - 299, BODY],
    ];
    for (const [signature, seconds, body] of cases) {
      const ours = (await check('slack', secret, headers(signature, seconds), body)).valid;
      expect({ signature, ours }).toEqual({ signature, ours: bolt(signature, seconds, body.toString('utf8')) });
    }
    expect(await check('slack', secret, headers(signed))).toEqual(VALID);
  });

  it('holds the timestamp to the tolerance (Slack asks for five minutes), either way', async () => {
    for (const seconds of [NOW_SECONDS - 301, NOW_SECONDS + 301]) {
      await expect(check('slack', secret, headers(v0(secret, seconds, BODY), seconds))).resolves.toEqual(OUTSIDE);
    }
  });

  it('refuses missing and malformed headers without computing', async () => {
    await expect(check('slack', secret, headers(undefined))).resolves.toEqual(MISSING);
    await expect(check('slack', secret, { slackSignature: v0(secret, NOW_SECONDS, BODY) })).resolves.toEqual(MISSING);
    await expect(check('slack', secret, headers('v1=' + '0'.repeat(64)))).resolves.toEqual(MALFORMED);
    await expect(check('slack', secret, headers(v0(secret, NOW_SECONDS, BODY).toUpperCase()))).resolves.toEqual(MALFORMED);
    await expect(check('slack', secret, headers(v0(secret, NOW_SECONDS, BODY), '1.7e9'))).resolves.toEqual(MALFORMED);
  });
});

describe('Zoom (x-zm-signature v0)', () => {
  const secret = 'Qt1mZ0yOS3mKOWi9L3FWQA';
  const headers = (signature: string, seconds: number | string = NOW_SECONDS): SignatureHeaders => ({
    zoomSignature: signature,
    zoomTimestamp: String(seconds),
  });

  it('takes the documented form: v0= and the hex HMAC of v0:<x-zm-request-timestamp>:<body> under the Secret Token', async () => {
    await expect(check('zoom', secret, headers(v0(secret, NOW_SECONDS, BODY)))).resolves.toEqual(VALID);
    await expect(check('zoom', secret, headers(v0(secret, NOW_SECONDS + 1, BODY)))).resolves.toEqual(MISMATCH);
    await expect(check('zoom', 'another secret token', headers(v0(secret, NOW_SECONDS, BODY)))).resolves.toEqual(MISMATCH);
    await expect(check('zoom', secret, headers(v0(secret, NOW_SECONDS - 400, BODY), NOW_SECONDS - 400))).resolves.toEqual(OUTSIDE);
    await expect(check('zoom', secret, { zoomSignature: v0(secret, NOW_SECONDS, BODY) })).resolves.toEqual(MISSING);
    // Slack's headers are not Zoom's.
    await expect(
      check('zoom', secret, { slackSignature: v0(secret, NOW_SECONDS, BODY), slackTimestamp: String(NOW_SECONDS) }),
    ).resolves.toEqual(MISSING);
  });
});

describe('Discord (X-Signature-Ed25519)', () => {
  const pair = generateKeyPairSync('ed25519');
  const publicKeyHex = (key: KeyObject): string => key.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  const publicKey = publicKeyHex(pair.publicKey);
  const signed = (seconds: number | string, body: Buffer, privateKey = pair.privateKey): string =>
    sign(null, Buffer.concat([Buffer.from(String(seconds)), body]), privateKey).toString('hex');
  const headers = (signature: string, seconds: number | string = NOW_SECONDS): SignatureHeaders => ({
    discordSignature: signature,
    discordTimestamp: String(seconds),
  });

  it("agrees with discord-interactions' verifyKey on signed, tampered and foreign requests", async () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const cases: [string, Buffer][] = [
      [signed(NOW_SECONDS, BODY), BODY],
      [signed(NOW_SECONDS, BODY), Buffer.from(BODY.toString() + ' ')],
      [signed(NOW_SECONDS, BODY, other), BODY],
      [signed(NOW_SECONDS + 1, BODY), BODY],
    ];
    for (const [signature, body] of cases) {
      const ours = (await check('discord', publicKey, headers(signature), body)).valid;
      expect({ signature, ours }).toEqual({ signature, ours: await verifyKey(body, signature, String(NOW_SECONDS), publicKey) });
    }
    // Upper-case hex, as some tools print keys, is the same key.
    await expect(check('discord', publicKey.toUpperCase(), headers(signed(NOW_SECONDS, BODY)))).resolves.toEqual(VALID);
  });

  it('holds the signed timestamp to the tolerance; refuses missing and malformed headers', async () => {
    const stale = NOW_SECONDS - 301;
    await expect(check('discord', publicKey, headers(signed(stale, BODY), stale))).resolves.toEqual(OUTSIDE);
    await expect(check('discord', publicKey, { discordSignature: signed(NOW_SECONDS, BODY) })).resolves.toEqual(MISSING);
    await expect(check('discord', publicKey, headers('zz'.repeat(64)))).resolves.toEqual(MALFORMED);
    await expect(check('discord', publicKey, headers(signed(NOW_SECONDS, BODY).slice(2)))).resolves.toEqual(MALFORMED);
  });

  it('checks a stored key that is not a public key against the decoy: a refusal, never a throw', async () => {
    await expect(check('discord', 'not-hex', headers(signed(NOW_SECONDS, BODY)))).resolves.toEqual(MISMATCH);
    expect(verifier.decoySecret('discord')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('Slack, Zoom and Discord: anything a client can send', () => {
  const header = anyHeaderValue((latin1) => [fc.constant(String(NOW_SECONDS)), latin1.map((text) => `v0=${text}`)]);
  itRefusesAnythingAgainstTheDecoys(
    ['slack', 'zoom', 'discord'],
    fc.record({
      slackSignature: header,
      slackTimestamp: header,
      zoomSignature: header,
      zoomTimestamp: header,
      discordSignature: header,
      discordTimestamp: header,
    }),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  );
});
