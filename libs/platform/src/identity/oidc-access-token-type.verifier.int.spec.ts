/**
 * OidcAccessTokenVerifier and the token's type, against a real OpenID provider (oidc-provider): an
 * access token is a JWT of type at+jwt (RFC 9068); an ID token of the same provider, or the
 * provider's own claims signed with its own key under another type, is refused.
 */
import { SignJWT, decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { expectRefused, useOidcProvider } from './testing/oidc-access-token.verifier.fixtures';

jest.setTimeout(20_000);

describe('OidcAccessTokenVerifier: the typ of the token (real OpenID provider)', () => {
  const { provider, verifierFor } = useOidcProvider();

  it("given an ID token of the provider, for a verifier whose audience is the page's client id (its aud), then invalid: its typ is not at+jwt", async () => {
    const { accessToken, idToken } = await provider.signInTokens('ada@example.com');
    expect(decodeJwt(idToken)).toMatchObject({ iss: provider.issuer, aud: 'wts-config-page', sub: 'ada@example.com' });
    expect(decodeProtectedHeader(idToken).typ).toBeUndefined();
    expectRefused(await verifierFor({ audience: 'wts-config-page' }).verify(idToken), 'invalid', idToken, /"typ"/);
    // The access token of the same sign-in: at+jwt, as oidc-provider issues every JWT access token.
    expect(decodeProtectedHeader(accessToken).typ).toBe('at+jwt');
    expect(await verifierFor().verify(accessToken)).toMatchObject({ kind: 'verified', subject: 'ada@example.com', role: 'operator' });
  });

  it("given the provider's own claims signed with its own key, then the typ decides: at+jwt in any case, with or without application/, is verified; JWT or none is invalid", async () => {
    const claims = decodeJwt(await provider.clientCredentialsToken('admin-bot'));
    const [signingKey] = provider.signingKeys.keys;
    const key = await importJWK(signingKey!, signingKey!.alg);
    const signed = (typ: string | undefined): Promise<string> =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: signingKey!.alg!, kid: signingKey!.kid, ...(typ === undefined ? {} : { typ }) })
        .sign(key);
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'Application/At+JWT'])
      expect(await verifierFor().verify(await signed(typ))).toMatchObject({ kind: 'verified', subject: 'admin-bot', role: 'admin' });
    for (const typ of ['JWT', 'jwt', 'at+jwt+id', 'application/jwt', undefined]) {
      const token = await signed(typ);
      expectRefused(await verifierFor().verify(token), 'invalid', token, /"typ"/);
    }
  });
});
