import { credentialProblem, metaCredentialOf, sealedCredential } from './provider-credential.rules';
import { signingSecretIsRequired, signingSecretProblem } from './signing-secret.rules';

describe('provider credentials: what each scheme takes at enable and rotate', () => {
  const PUBLIC_KEY = 'e1a9f6cc3d0b2c9dd2a4b0b5b7f1d1b0c2a4e6f8091a2b3c4d5e6f708192a3b4';

  it.each([
    ['slack', { secret: '8f742231b10e8888abcd99abcdef85a5' }],
    ['zoom', { secret: 'Qt1mZ0yOS3mKOWi9L3FWQA' }],
    ['twitch', { secret: 'a secret of 10 to 100 ASCII characters' }],
    ['x', { secret: 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu' }],
    ['meta', { secret: '4e4d2c3b8f0a47c1a2b3c4d5e6f7a8b9', verifyToken: 'my-verify-token' }],
    ['discord', { publicKey: PUBLIC_KEY }],
    ['discord', { publicKey: PUBLIC_KEY.toUpperCase() }],
    ['microsoft_graph', { clientState: 'secretClientValue' }],
    ['standard_webhooks', {}],
  ] as const)('accepts a usable %s credential %j', (scheme, input) => {
    expect(credentialProblem(scheme, input)).toBeUndefined();
  });

  it.each([
    ['slack', {}, /slack verification needs the provider's signing secret in verification.secret/],
    ['slack', { secret: 'xoxb-a-bot-token-not-the-secret' }, /Signing Secret/],
    ['zoom', { secret: 'short' }, /Secret Token/],
    ['twitch', { secret: 'nine char' }, /10 to 100 ASCII/],
    ['twitch', { secret: 'é'.repeat(20) }, /10 to 100 ASCII/],
    ['x', { secret: 'has spaces in the consumer secret' }, /API Key Secret/],
    ['meta', { secret: '4e4d2c3b8f0a47c1a2b3c4d5e6f7a8b9' }, /needs verification.verify_token/],
    ['meta', { secret: '4e4d2c3b8f0a47c1a2b3c4d5e6f7a8b9', verifyToken: 'short' }, /Verify token/],
    ['meta', { verifyToken: 'my-verify-token' }, /verification.secret/],
    ['discord', {}, /needs verification.public_key/],
    ['discord', { publicKey: PUBLIC_KEY.slice(2) }, /64 hexadecimal digits/],
    ['discord', { publicKey: PUBLIC_KEY, secret: 'a-bot-token-value' }, /takes no secret/],
    ['microsoft_graph', {}, /needs verification.client_state/],
    ['microsoft_graph', { clientState: 'x'.repeat(129) }, /128/],
    ['microsoft_graph', { clientState: 'has a space' }, /no spaces/],
    ['github', { secret: 'a long random secret from GitHub', verifyToken: 'my-verify-token' }, /verify_token is not for github/],
    ['slack', { secret: '8f742231b10e8888abcd99abcdef85a5', clientState: 'secretClientValue' }, /client_state is not for slack/],
  ] as const)('refuses %s %j with words the operator can act on', (scheme, input, message) => {
    expect(credentialProblem(scheme, input)).toMatch(message);
  });

  it("names the fields as rotate's body does when asked (no verification. prefix)", () => {
    expect(credentialProblem('discord', {}, '')).toBe('discord verification needs public_key');
  });

  it('seals one string per credential: the secret, the public key in lower case, the clientState, Meta’s pair as JSON', () => {
    expect(sealedCredential('slack', { secret: 's3cr3t' })).toBe('s3cr3t');
    expect(sealedCredential('discord', { publicKey: PUBLIC_KEY.toUpperCase() })).toBe(PUBLIC_KEY);
    expect(sealedCredential('microsoft_graph', { clientState: 'secretClientValue' })).toBe('secretClientValue');
    const meta = sealedCredential('meta', { secret: 'app-secret-value', verifyToken: 'my-verify-token' });
    expect(metaCredentialOf(meta)).toEqual({ secret: 'app-secret-value', verifyToken: 'my-verify-token' });
    expect(metaCredentialOf('app-secret-value')).toBeUndefined();
    expect(metaCredentialOf('{"secret":"a"}')).toBeUndefined();
  });

  it('Discord and Graph take no pasted secret; every other new scheme needs one', () => {
    expect(signingSecretIsRequired('discord')).toBe(false);
    expect(signingSecretIsRequired('microsoft_graph')).toBe(false);
    for (const scheme of ['slack', 'zoom', 'twitch', 'x', 'meta'] as const) expect(signingSecretIsRequired(scheme)).toBe(true);
    expect(signingSecretProblem('microsoft_graph', 'anything')).toMatch(/client_state/);
  });
});
