/** The test OpenID provider for a describe, and the verifier through which the ingress under test trusts it. */
import { OidcAccessTokenVerifier } from '@wts/platform';
import { startOidcProvider, type OidcProviderOptions, type RunningOidcProvider } from './oidc-provider.harness';

/**
 * Call it in a describe: the provider started (with `options`) before the describe's tests and
 * stopped after them. The answer stands for the running provider from beforeAll on.
 */
export function useStartedOidcProvider(options: OidcProviderOptions = {}): RunningOidcProvider {
  let started: RunningOidcProvider | undefined;
  beforeAll(async () => {
    started = await startOidcProvider(options);
  });
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as RunningOidcProvider, {
    get: (_target, property) => {
      if (!started) throw new Error('the OpenID provider is used before beforeAll started it');
      return Reflect.get(started, property);
    },
  });
}

/** The admin API's access-token verifier for `provider`: its issuer and audience, roles in `roles`, keys kept five minutes. */
export function adminAccessTokens(provider: RunningOidcProvider): OidcAccessTokenVerifier {
  return new OidcAccessTokenVerifier({
    issuer: provider.issuer,
    audience: provider.audience,
    rolesClaim: 'roles',
    jwksCacheMaxAgeMs: 300_000,
  });
}
