import { createPublicKey, type JsonWebKey as NodeJsonWebKey } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { OIDC_TEST_NAMESPACED_ROLES_CLAIM, generateSigningKeys, startOidcProvider } from '../../../../test/support/oidc-provider.harness';
import { eventuallyRefused, expectRefused, useOidcProvider, verifiedAs } from './testing/oidc-access-token.verifier.fixtures';

jest.setTimeout(20_000);

describe('OidcAccessTokenVerifier against a real OpenID provider (oidc-provider)', () => {
  const oidc = useOidcProvider();
  const { provider, verifierFor } = oidc;

  describe('tokens of the provider', () => {
    it.each([
      ['viewer-bot', 'viewer'],
      ['operator-bot', 'operator'],
      ['admin-bot', 'admin'],
    ] as const)('given a client-credentials token of %s, then verified as %s, named by its subject', async (clientId, role) => {
      const token = await provider.clientCredentialsToken(clientId);
      expect(await verifierFor().verify(token)).toEqual(verifiedAs(clientId, { displayVerified: false, role }));
    });

    it('given a client without roles, then verified with no role (the caller refuses it what needs one)', async () => {
      const token = await provider.clientCredentialsToken('noroles-bot');
      expect(await verifierFor().verify(token)).toEqual(verifiedAs('noroles-bot', { displayVerified: false, role: undefined }));
    });

    it('given a person signed in through the login form, then verified with their verified email as display and their role', async () => {
      const token = await provider.signInToken('ada@example.com');
      expect(await verifierFor().verify(token)).toEqual(verifiedAs('ada@example.com', { displayVerified: true, role: 'operator' }));
    });

    it("given a person whose email the provider did not verify (someone else's address), then named by their subject, not that email", async () => {
      const token = await provider.signInToken('mallory');
      expect(decodeJwt(token)).toMatchObject({ sub: 'mallory', email: 'root@example.com', email_verified: false });
      expect(await verifierFor().verify(token)).toEqual(verifiedAs('mallory', { displayVerified: false, role: 'viewer' }));
    });

    it.each([
      ['realm_access.roles', 'a nested path (Keycloak)'],
      [OIDC_TEST_NAMESPACED_ROLES_CLAIM, 'a namespaced claim with dots in its name (Auth0)'],
    ])('given the roles claim %s, %s, then the role is read there', async (rolesClaim) => {
      const token = await provider.clientCredentialsToken('admin-bot');
      expect(await verifierFor({ rolesClaim }).verify(token)).toMatchObject({ kind: 'verified', role: 'admin' });
      expect(await verifierFor({ rolesClaim: 'groups' }).verify(token)).toMatchObject({ kind: 'verified', role: undefined });
    });

    it('given a token past its exp, then refused as expired (within the clock tolerance it is still accepted)', async () => {
      const token = await provider.clientCredentialsToken('short-lived-bot');
      const strict = verifierFor({ clockToleranceSeconds: 0 });
      expect(await strict.verify(token)).toMatchObject({ kind: 'verified', role: 'viewer' });
      const refusal = await eventuallyRefused(strict, token, { timeoutMs: 6_000, what: 'the two-second token to expire', everyMs: 250 });
      expectRefused(refusal, 'expired', token);
      expect(decodeJwt(token).exp! * 1000).toBeLessThanOrEqual(Date.now());
      expect(await verifierFor().verify(token)).toMatchObject({ kind: 'verified' });
    });
  });

  describe('tokens that must be refused', () => {
    it('given a token of the provider for another audience (resource), then invalid', async () => {
      const token = await provider.clientCredentialsToken('admin-bot', { audience: 'https://other.example.test/api' });
      expect(decodeJwt(token).aud).toBe('https://other.example.test/api');
      expectRefused(await verifierFor().verify(token), 'invalid', token, /"aud"/);
    });

    it('given a token of another provider with the same keys and audience, then invalid (issuer)', async () => {
      const other = await startOidcProvider({ signingKeys: oidc.firstKeys });
      try {
        const token = await other.clientCredentialsToken('admin-bot');
        // The same token is good where its own issuer is trusted: only the issuer is wrong here.
        expect(await verifierFor({ issuer: other.issuer }).verify(token)).toMatchObject({ kind: 'verified', role: 'admin' });
        expectRefused(await verifierFor().verify(token), 'invalid', token, /"iss"/);
      } finally {
        await other.stop();
      }
    });

    it('given alg none (no signature), then invalid', async () => {
      const claims = decodeJwt(await provider.clientCredentialsToken('admin-bot'));
      const handMade = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims)}.`;
      expectRefused(await verifierFor().verify(handMade), 'invalid', handMade);
      const unsecured = new UnsecuredJWT(claims).encode();
      expectRefused(await verifierFor().verify(unsecured), 'invalid', unsecured, /ERR_JOSE_ALG_NOT_ALLOWED/);
    });

    it("given HS256 signed with the provider's public key as the secret (PEM and JWK), then invalid", async () => {
      const genuine = await provider.clientCredentialsToken('admin-bot');
      const claims = decodeJwt(genuine);
      const { kid } = decodeProtectedHeader(genuine);
      const jwks = (await (await fetch(`${provider.issuer}/jwks`)).json()) as { keys: NodeJsonWebKey[] };
      const publicJwk = jwks.keys.find((key) => key.kid === kid)!;
      const pem = createPublicKey({ key: publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
      for (const secret of [pem, JSON.stringify(publicJwk)]) {
        const forged = await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
          .sign(new TextEncoder().encode(secret));
        expectRefused(await verifierFor().verify(forged), 'invalid', forged, /ERR_JOSE_ALG_NOT_ALLOWED/);
      }
    });

    it('given a token whose signature was altered, then invalid', async () => {
      const genuine = await provider.clientCredentialsToken('viewer-bot');
      const [header, , signature] = genuine.split('.');
      const elevated = `${header}.${encode({ ...decodeJwt(genuine), roles: ['admin'] })}.${signature}`;
      expectRefused(await verifierFor().verify(elevated), 'invalid', elevated, /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
      for (const garbage of ['not-a-jwt', 'a.b.c', '']) expectRefused(await verifierFor().verify(garbage), 'invalid', garbage);
    });

    it('given a discovery document naming another issuer than configured (a trailing slash), then invalid, reported once', async () => {
      const warnings: string[] = [];
      const verifier = verifierFor({ issuer: `${provider.issuer}/`, onWarning: (message) => warnings.push(message) });
      const token = await provider.clientCredentialsToken('admin-bot');
      expectRefused(await verifier.verify(token), 'invalid', token, /names the issuer/);
      expectRefused(await verifier.verify(token), 'invalid', token, /names the issuer/);
      expect(warnings).toEqual([
        `OpenID Connect is misconfigured, every access token is refused: the provider's discovery document names the issuer "${provider.issuer}", not OIDC_ISSUER "${provider.issuer}/"`,
      ]);
    });
  });

  describe('keys and availability', () => {
    it('given the provider restarted with a new key set, then a new-key token is accepted at once and a retired-key token is refused once the cache has aged', async () => {
      const retiredToken = await provider.clientCredentialsToken('operator-bot');
      // Follows a rotation at once (no cool-down between fetches for an unknown kid).
      const following = verifierFor({ jwksCooldownMs: 0 });
      // Keeps what it fetched for a minute: the retired key stays good from its cache.
      const caching = verifierFor();
      // Keys kept one second.
      const shortCache = verifierFor({ jwksCacheMaxAgeMs: 1_000 });
      for (const verifier of [following, caching, shortCache])
        expect(await verifier.verify(retiredToken)).toMatchObject({ kind: 'verified' });

      const rotatedKeys = await generateSigningKeys('ES256');
      await provider.restart(rotatedKeys);
      const newToken = await provider.clientCredentialsToken('operator-bot');
      expect(decodeProtectedHeader(newToken)).toMatchObject({ alg: 'ES256', kid: rotatedKeys.keys[0].kid });

      expect(await following.verify(newToken)).toMatchObject({ kind: 'verified', role: 'operator' });
      expectRefused(await following.verify(retiredToken), 'invalid', retiredToken, /ERR_JWKS_NO_MATCHING_KEY/);
      expect(await caching.verify(retiredToken)).toMatchObject({ kind: 'verified', role: 'operator' });

      const refusal = await eventuallyRefused(shortCache, retiredToken, {
        timeoutMs: 5_000,
        what: 'the retired key to leave the one-second cache',
        everyMs: 200,
      });
      expectRefused(refusal, 'invalid', retiredToken, /ERR_JWKS_NO_MATCHING_KEY/);
      expect(await shortCache.verify(newToken)).toMatchObject({ kind: 'verified', role: 'operator' });
    });

    it('given the provider down, then unavailable (never a crash); back up, then verified again', async () => {
      const token = await provider.clientCredentialsToken('admin-bot');
      const shortCache = verifierFor({ jwksCacheMaxAgeMs: 1_000 });
      expect(await shortCache.verify(token)).toMatchObject({ kind: 'verified' });
      await provider.stop();
      try {
        const neverDiscovered = verifierFor();
        expectRefused(await neverDiscovered.verify(token), 'unavailable', token, /discovery of .* failed/);
        const refusal = await eventuallyRefused(shortCache, token, {
          timeoutMs: 5_000,
          what: 'the cached keys to age with the provider down',
          everyMs: 200,
        });
        expectRefused(refusal, 'unavailable', token, /the keys at .* cannot be had/);
        expectRefused(await neverDiscovered.verify(token), 'unavailable', token);
        // What the token alone shows is decided without the provider: still invalid, not unavailable.
        const unsecured = new UnsecuredJWT(decodeJwt(token)).encode();
        expectRefused(await neverDiscovered.verify(unsecured), 'invalid', unsecured, /ERR_JOSE_ALG_NOT_ALLOWED/);
        expectRefused(await neverDiscovered.verify('not-a-jwt'), 'invalid', 'not-a-jwt', /ERR_JWT_INVALID/);
      } finally {
        await provider.restart();
      }
      const sameKeysToken = await provider.clientCredentialsToken('admin-bot');
      const neverDiscovered = verifierFor();
      expect(await neverDiscovered.verify(sameKeysToken)).toMatchObject({ kind: 'verified', role: 'admin' });
      expect(await shortCache.verify(sameKeysToken)).toMatchObject({ kind: 'verified', role: 'admin' });
    });

    it('given a provider that accepts connections and never answers, then unavailable within the fetch timeout', async () => {
      const silent = await silentServer();
      try {
        const verifier = verifierFor({ issuer: `http://127.0.0.1:${silent.port}`, fetchTimeoutMs: 300 });
        const token = await provider.clientCredentialsToken('admin-bot');
        const started = Date.now();
        expectRefused(await verifier.verify(token), 'unavailable', token, /timeout/i);
        expect(Date.now() - started).toBeLessThan(3_000);
      } finally {
        await silent.close();
      }
    });
  });
});

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A TCP server on 127.0.0.1 that holds every connection open and never says a word. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
