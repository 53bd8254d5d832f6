import { signingSecretBinding, signingSecretIsRequired, signingSecretProblem, standardWebhooksSecret } from './signing-secret.rules';

describe('signing secrets', () => {
  describe('standardWebhooksSecret', () => {
    it('is whsec_ and the key in standard base64, as the standard (and its libraries) read it', () => {
      const key = Buffer.alloc(32, 0xfb);
      const secret = standardWebhooksSecret(key);
      expect(secret).toBe('whsec_' + key.toString('base64'));
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toEqual(key);
      expect(signingSecretProblem('standard_webhooks', secret)).toBeUndefined();
    });

    it('refuses keys outside 24 to 64 bytes', () => {
      expect(() => standardWebhooksSecret(Buffer.alloc(16))).toThrow(/24 to 64/);
      expect(() => standardWebhooksSecret(Buffer.alloc(65))).toThrow(/24 to 64/);
    });
  });

  describe('signingSecretProblem', () => {
    it.each([
      ['github', 'a long random secret from GitHub'],
      ['github', 'x'.repeat(1024)],
      ['stripe', 'whsec_' + 'A1b2C3d4'.repeat(4)],
      ['standard_webhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ] as const)('accepts a usable %s secret', (scheme, secret) => {
      expect(signingSecretProblem(scheme, secret)).toBeUndefined();
    });

    it.each([
      ['github', 'short', /16 to 1024/],
      ['github', 'x'.repeat(1025), /16 to 1024/],
      ['github', 'sixteen chars\u0007here', /control/],
      ['github', ' a long random secret with a space', /whitespace/],
      ['stripe', 'sk_live_not_a_signing_secret', /whsec_/],
      ['stripe', 'whsec_with spaces inside it', /whsec_/],
      ['stripe', 'whsec_abc123\n', /whitespace/],
      ['standard_webhooks', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', /whsec_/],
      ['standard_webhooks', 'whsec_not*base64', /base64/],
      ['standard_webhooks', 'whsec_' + Buffer.alloc(16).toString('base64'), /24 to 64/],
    ] as const)('refuses a %s secret %j with a message that says what to do', (scheme, secret, message) => {
      expect(signingSecretProblem(scheme, secret)).toMatch(message);
    });
  });

  it('needs a pasted secret for GitHub and Stripe; Standard Webhooks makes one when none is given', () => {
    expect(signingSecretIsRequired('github')).toBe(true);
    expect(signingSecretIsRequired('stripe')).toBe(true);
    expect(signingSecretIsRequired('standard_webhooks')).toBe(false);
  });

  it('binds a sealed secret to its webhook and its own id', () => {
    expect(signingSecretBinding('whk_a', 'sgs_b')).toBe('whk_a/sgs_b');
    expect(signingSecretBinding('whk_a', 'sgs_b')).not.toBe(signingSecretBinding('whk_b', 'sgs_b'));
  });
});
