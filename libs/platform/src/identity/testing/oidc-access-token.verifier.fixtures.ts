import type { RefusedAccessToken, VerifiedAccessToken } from '@wts/application';
import { eventually } from '@wts/testing';
import type { JSONWebKeySet } from 'jose';
import {
  OIDC_TEST_AUDIENCE,
  generateSigningKeys,
  startOidcProvider,
  type RunningOidcProvider,
} from '../../../../../test/support/oidc-provider.harness';
import { OidcAccessTokenVerifier, type OidcAccessTokenVerifierOptions } from '../oidc-access-token.verifier';

/** The OidcAccessTokenVerifier specs' real OpenID provider (oidc-provider; test code, not shipped). */
export interface OidcProviderUnderTest {
  /** The provider, started before the describe's tests (with a fresh RS256 key) and stopped after them. */
  readonly provider: RunningOidcProvider;
  /** The key set it started with (restart() may sign with others). */
  readonly firstKeys: JSONWebKeySet;
  /** A verifier that trusts the provider: its issuer, OIDC_TEST_AUDIENCE, roles in `roles`, keys kept a minute. */
  verifierFor(overrides?: Partial<OidcAccessTokenVerifierOptions>): OidcAccessTokenVerifier;
}

/** Starts the provider in beforeAll and stops it in afterAll of the describe it is called in. */
export function useOidcProvider(): OidcProviderUnderTest {
  let started: { provider: RunningOidcProvider; firstKeys: JSONWebKeySet } | undefined;
  beforeAll(async () => {
    const firstKeys = await generateSigningKeys();
    started = { firstKeys, provider: await startOidcProvider({ signingKeys: firstKeys }) };
  });
  afterAll(async () => {
    await started?.provider.stop();
  });
  const running = (): NonNullable<typeof started> => {
    if (!started) throw new Error('the OpenID provider is used before beforeAll started it');
    return started;
  };
  const provider = new Proxy({} as RunningOidcProvider, {
    get: (_target, property) => Reflect.get(running().provider, property),
  });
  return {
    provider,
    get firstKeys() {
      return running().firstKeys;
    },
    verifierFor: (overrides = {}) =>
      new OidcAccessTokenVerifier({
        issuer: provider.issuer,
        audience: OIDC_TEST_AUDIENCE,
        rolesClaim: 'roles',
        jwksCacheMaxAgeMs: 60_000,
        fetchTimeoutMs: 2_000,
        ...overrides,
      }),
  };
}

/** What verify answers for a token of `subject` that names it by its subject (display). */
export function verifiedAs(
  subject: string,
  facts: { readonly displayVerified: boolean; readonly role: VerifiedAccessToken['role'] },
): VerifiedAccessToken {
  return { kind: 'verified', subject, display: subject, ...facts };
}

/** Refused for `reason`, its detail matching `detail` when given. */
export function expectRefused(
  outcome: VerifiedAccessToken | RefusedAccessToken,
  reason: RefusedAccessToken['reason'],
  token: string,
  detail?: RegExp,
): void {
  expect(outcome).toMatchObject({ kind: 'refused', reason });
  const refusal = outcome as RefusedAccessToken;
  if (detail) expect(refusal.detail).toMatch(detail);
  // The detail goes to logs and the audit trail: never the token, nor any part of it.
  for (const part of [token, ...token.split('.')].filter((piece) => piece.length >= 8)) expect(refusal.detail).not.toContain(part);
}

/** Asks `verifier` about `token` again (every `everyMs`, for `timeoutMs` at most, waiting for `what`) until it refuses it: that refusal. */
export function eventuallyRefused(
  verifier: OidcAccessTokenVerifier,
  token: string,
  wait: { readonly timeoutMs: number; readonly what: string; readonly everyMs: number },
): Promise<RefusedAccessToken> {
  return eventually(
    async () => {
      const outcome = await verifier.verify(token);
      return outcome.kind === 'refused' ? outcome : undefined;
    },
    wait.timeoutMs,
    wait.what,
    wait.everyMs,
  );
}
