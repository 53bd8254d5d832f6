import { SIGNED_SCHEMES } from '@wts/contracts';
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
      ['svix', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      ['shopify', 'shpss_' + '0123456789abcdef'.repeat(2)],
      ['shopify', '0123456789abcdef'.repeat(2)],
      ['shopify', '0123456789abcdef'.repeat(4)],
      ['gitlab', 'a long random secret token, set in GitLab!'],
      ['gitlab', 'x'.repeat(1024)],
      ['linear', 'lin_wh_MFFICJquaM0H5vqRj6Ylt6BpuQB554QokXxroxQCIqvo'],
      ['sentry', '0123456789abcdef'.repeat(4)],
      ['pagerduty', 'ChzuqXDo/2P0h9CMv6BDWJIHJY/6JXPyJxTdwAp6/Fl5xFgnbnGQFKNRjmi/lIOu'],
      ['zendesk', 'dGhpc19zZWNyZXRfaXNfZm9yX3Rlc3Rpbmdfb25seQ=='],
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
      ['svix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', /whsec_.*Signing Secret/],
      ['shopify', 'shpat_' + '0123456789abcdef'.repeat(2), /client secret.*Settings → Client secret/],
      ['shopify', 'shpss_short', /shpss_/],
      ['gitlab', 'short', /16 to 1024 .*Settings → Webhooks/],
      ['gitlab', 'sixteen chars\u0007here!', /printable ASCII/],
      ['gitlab', 'sixteen chars é here!', /printable ASCII/],
      ['linear', 'lin_api_MFFICJquaM0H5vqRj6Ylt6BpuQB554QokXxroxQCIqvo', /lin_wh_.*Settings → API → Webhooks.*not an API key/],
      ['linear', 'lin_wh_short', /lin_wh_/],
      ['sentry', 'sntrys_eyJpYXQiOjE3MDAwMDAwMDB9', /Client Secret, 64 hex digits.*Developer Settings/],
      ['sentry', '0123456789ABCDEF'.repeat(4), /64 hex/],
      ['pagerduty', 'too short', /Generic Webhooks \(v3\)/],
      ['pagerduty', 'has a " quote in it and is long enough', /PagerDuty/],
      ['zendesk', 'Bearer dGhpc19zZWNyZXRfaXNfZm9y', /Admin Center → Apps and integrations → Webhooks/],
      ['zendesk', '\tdGhpc19zZWNyZXRfaXNfZm9yX3Rlc3Rpbmdfb25seQ==', /whitespace/],
    ] as const)('refuses a %s secret %j with a message that says what to do', (scheme, secret, message) => {
      expect(signingSecretProblem(scheme, secret)).toMatch(message);
    });
  });

  it("needs a pasted secret for every provider's scheme but Discord's and Graph's (which take none); Standard Webhooks makes one when none is given", () => {
    const takesNone = ['standard_webhooks', 'discord', 'microsoft_graph'];
    for (const scheme of SIGNED_SCHEMES)
      expect({ scheme, required: signingSecretIsRequired(scheme) }).toEqual({ scheme, required: !takesNone.includes(scheme) });
  });

  it('binds a sealed secret to its webhook and its own id', () => {
    expect(signingSecretBinding('whk_a', 'sgs_b')).toBe('whk_a/sgs_b');
    expect(signingSecretBinding('whk_a', 'sgs_b')).not.toBe(signingSecretBinding('whk_b', 'sgs_b'));
  });
});
