import { credentialProblem, metaCredentialOf, sealedCredential, type Handshake, type ProviderCredentialInput } from '@wts/domain';
import { createHmac } from 'node:crypto';
import { ProviderSignatureVerifier } from './provider-signature.verifier';

/**
 * Each handshake answered exactly as the provider documents it: status, content type, body byte
 * for byte (docs/signed-senders.md, "Handshakes", cites each provider's page).
 */
const verifier = new ProviderSignatureVerifier();
const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

describe('handshake answers', () => {
  const slackChallenge = '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P';
  const twitchChallenge = 'pogchamp-kappa-360noscope-vohiyo';
  const validationToken = 'Validation: Testing client application reachability for subscription Request-Id: 7f6f9a2c';
  it.each<[string, Handshake, string, string]>([
    [
      "Slack url_verification: 200 text/plain, the challenge as is (Slack's first documented form)",
      { kind: 'slack_url_verification', scheme: 'slack', challenge: slackChallenge },
      'secret',
      slackChallenge,
    ],
    [
      'Twitch webhook_callback_verification: 200 text/plain, the raw challenge',
      { kind: 'twitch_callback_verification', scheme: 'twitch', challenge: twitchChallenge },
      'a twitch secret',
      twitchChallenge,
    ],
    [
      'Microsoft Graph: 200 text/plain, the validationToken as decoded from the query',
      { kind: 'graph_validation', scheme: 'microsoft_graph', validationToken },
      'any',
      validationToken,
    ],
  ])('%s', (_case, handshake, secret, echoed) => {
    expect(verifier.answer(handshake, secret)).toEqual({ status: 200, contentType: TEXT, body: echoed });
  });

  it('Zoom endpoint.url_validation: 200 JSON {plainToken, encryptedToken = hex HMAC-SHA256(secret token, plainToken)}', () => {
    const secret = 'Qt1mZ0yOS3mKOWi9L3FWQA';
    const plainToken = 'qgg8vlvZRS6UYooatFL8Aw';
    const answer = verifier.answer({ kind: 'zoom_url_validation', scheme: 'zoom', plainToken }, secret);
    expect(answer).toMatchObject({ status: 200, contentType: JSON_TYPE });
    expect(JSON.parse(answer!.body)).toEqual({ plainToken, encryptedToken: createHmac('sha256', secret).update(plainToken).digest('hex') });
    expect(Object.keys(JSON.parse(answer!.body))).toEqual(['plainToken', 'encryptedToken']);
  });

  it('Discord PING: interactions (type 1) answered {"type":1}, webhook events (type 0) with an empty 204', () => {
    const publicKey = verifier.decoySecret('discord');
    expect(verifier.answer({ kind: 'discord_ping', scheme: 'discord' }, publicKey)).toEqual({
      status: 200,
      contentType: JSON_TYPE,
      body: '{"type":1}',
    });
    expect(verifier.answer({ kind: 'discord_webhook_ping', scheme: 'discord' }, publicKey)).toEqual({
      status: 204,
      contentType: undefined,
      body: '',
    });
  });

  it('X CRC: 200 JSON {"response_token": "sha256=" + base64 HMAC-SHA256(consumer secret, crc_token)}', () => {
    // The consumer secret and token of X's own published example (its gists' get_challenge_response).
    const secret = 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu';
    const crcToken = '9b4507b3-9040-4669-9ca3-6b94edb50553';
    const answer = verifier.answer({ kind: 'x_crc', scheme: 'x', crcToken }, secret);
    expect(answer).toEqual({
      status: 200,
      contentType: JSON_TYPE,
      body: JSON.stringify({ response_token: 'sha256=' + createHmac('sha256', secret).update(crcToken).digest('base64') }),
    });
  });

  it('Meta: 200 text/plain hub.challenge when hub.verify_token is the webhook’s; no answer otherwise', () => {
    const credential = sealedCredential('meta', { secret: 'a1b2c3d4e5f6a7b8c9d0', verifyToken: 'meta-verify-token' });
    const handshake = (verifyToken: string): Handshake => ({
      kind: 'meta_subscribe',
      scheme: 'meta',
      verifyToken,
      challenge: '1158201444',
    });
    expect(verifier.answer(handshake('meta-verify-token'), credential)).toEqual({ status: 200, contentType: TEXT, body: '1158201444' });
    expect(verifier.answer(handshake('meta-verify-tokeN'), credential)).toBeUndefined();
    expect(verifier.answer(handshake(''), credential)).toBeUndefined();
    // The decoy's token is nobody's: a guess at it answers nothing either.
    expect(verifier.answer(handshake('meta-verify-token'), verifier.decoySecret('meta'))).toBeUndefined();
  });

  it("makes each provider's decoy a credential of the scheme's own form: a decoy check does a real check's work", () => {
    const asInput = (
      scheme: 'slack' | 'zoom' | 'discord' | 'twitch' | 'x' | 'meta' | 'microsoft_graph',
      decoy: string,
    ): ProviderCredentialInput => {
      if (scheme === 'discord') return { publicKey: decoy };
      if (scheme === 'microsoft_graph') return { clientState: decoy };
      if (scheme === 'meta') return metaCredentialOf(decoy) ?? {};
      return { secret: decoy };
    };
    for (const scheme of ['slack', 'zoom', 'discord', 'twitch', 'x', 'meta', 'microsoft_graph'] as const) {
      expect({ scheme, problem: credentialProblem(scheme, asInput(scheme, verifier.decoySecret(scheme))) }).toEqual({
        scheme,
        problem: undefined,
      });
    }
  });
});
