import { uiContentSecurityPolicy, uiSecurityHeaders } from './ui-security.headers';

const directives = (csp: string): string[] => csp.split('; ');

describe('the Config page CSP, built from the sign-in settings', () => {
  it('without an identity provider the page talks to its own origin only', () => {
    const csp = directives(uiContentSecurityPolicy(null));
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("require-trusted-types-for 'script'");
  });

  it("with one, connect-src adds the issuer's origin (not its path), and forms still post only to us", () => {
    const oidc = {
      issuer: 'https://login.example.com/realms/ops',
      client_id: 'wts-config-page',
      audience: 'https://wts.example.com',
      scope: 'openid',
    };
    const csp = directives(uiContentSecurityPolicy(oidc));
    expect(csp).toContain("connect-src 'self' https://login.example.com");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(uiSecurityHeaders(oidc)['content-security-policy']).toBe(uiContentSecurityPolicy(oidc));
  });

  it('keeps a port, so a provider on this machine is allowed exactly', () => {
    const oidc = { issuer: 'http://127.0.0.1:4455', client_id: 'c', audience: 'a', scope: 'openid' };
    expect(directives(uiContentSecurityPolicy(oidc))).toContain("connect-src 'self' http://127.0.0.1:4455");
  });
});
