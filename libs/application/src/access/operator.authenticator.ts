import { API_KEY_CATALOG_STREAM, type ActorRecord, type OperatorRole } from '@wts/contracts';
import { DECOY_DIGEST, ID_PREFIX, apiKeyStanding, digestSecret, digestsMatch, parseBearerSecret } from '@wts/domain';
import type { ConfigurationFreshness } from '../configuration/configuration.feeder';
import type { ConfigurationState } from '../configuration/configuration.state';
import type { Clock } from '../shared/runtime.port';
import type { AccessTokenVerifier } from './access-token.verifier';

/** Someone the admin API knows, and the role they hold (undefined: signed in, but no role of ours). */
export interface OperatorPrincipal {
  readonly actor: ActorRecord;
  readonly role: OperatorRole | undefined;
}

/** Why a credential opened nothing (for the audit trail and logs; the caller sees one 401). */
export type DenialReason =
  'no_credential' | 'unknown_credential' | 'api_key_revoked' | 'api_key_expired' | 'token_invalid' | 'token_expired';

export type Authentication =
  | { readonly kind: 'authenticated'; readonly principal: OperatorPrincipal }
  /** `actor`: who the credential names, when it names someone (a revoked or expired key); else null. */
  | { readonly kind: 'denied'; readonly reason: DenialReason; readonly actor: ActorRecord | null }
  /** The identity provider's keys cannot be had: neither yes nor no (503, try again). */
  | { readonly kind: 'unavailable'; readonly detail: string };

export const BOOTSTRAP_ACTOR: ActorRecord = { kind: 'bootstrap', subject: 'bootstrap', display: 'bootstrap token', displayVerified: true };

/** A JWS compact serialisation: three base64url parts (the signature may be empty, as `alg: none` makes it). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface OperatorAuthenticatorOptions {
  /** digestSecret(ADMIN_TOKEN); undefined when the bootstrap token is off (ADMIN_TOKEN=off). */
  readonly bootstrapTokenDigest: string | undefined;
  /** OIDC access tokens; undefined when OIDC_ISSUER is not set. */
  readonly accessTokens: AccessTokenVerifier | undefined;
}

/**
 * Who presents `Authorization: Bearer <credential>` to the admin API: the bootstrap ADMIN_TOKEN
 * (role admin), an API key `wtk_…` (its role; the key catalog's head is confirmed first, so a key
 * revoked on any replica is refused here at once), or an OIDC access token (the role its roles
 * claim grants). The bootstrap digest is compared on every call, whatever was presented.
 */
export class OperatorAuthenticator {
  constructor(
    private readonly config: ConfigurationState,
    private readonly freshness: ConfigurationFreshness,
    private readonly clock: Clock,
    private readonly options: OperatorAuthenticatorOptions,
  ) {}

  /** Whether anything but the bootstrap token can sign in (the Config page offers sign-in then). */
  get signInConfigured(): boolean {
    return this.options.accessTokens !== undefined;
  }

  async authenticate(authorization: string | undefined): Promise<Authentication> {
    const credential = parseBearerSecret(authorization) ?? '';
    // Digested once: the bootstrap compare (made whatever was presented) and an API key's lookup share it.
    const digest = digestSecret(credential);
    if (this.isBootstrapToken(credential, digest)) return { kind: 'authenticated', principal: { actor: BOOTSTRAP_ACTOR, role: 'admin' } };
    if (credential === '') return denied('no_credential');
    if (credential.startsWith(ID_PREFIX.apiKeySecret)) return this.apiKey(digest);
    if (this.options.accessTokens && JWT_SHAPE.test(credential)) return this.accessToken(this.options.accessTokens, credential);
    return denied('unknown_credential');
  }

  private isBootstrapToken(credential: string, digest: string): boolean {
    const expected = this.options.bootstrapTokenDigest;
    const matches = digestsMatch(digest, expected ?? DECOY_DIGEST);
    return expected !== undefined && matches && credential !== '';
  }

  private async apiKey(digest: string): Promise<Authentication> {
    // Every replica folds the catalog as it is now: a revocation anywhere is seen here.
    await this.freshness.ensureFresh([API_KEY_CATALOG_STREAM]);
    const key = this.config.apiKeyByDigest(digest);
    const matches = digestsMatch(digest, key?.keyDigest ?? DECOY_DIGEST);
    if (!key || !matches) return denied('unknown_credential');
    // The key's name was given by an admin: it names the key as surely as its id does.
    const actor: ActorRecord = { kind: 'api_key', subject: key.keyId, display: key.name, displayVerified: true };
    const standing = apiKeyStanding(key, this.clock.now().getTime());
    if (standing === 'revoked') return denied('api_key_revoked', actor);
    if (standing === 'expired') return denied('api_key_expired', actor);
    return { kind: 'authenticated', principal: { actor, role: key.role } };
  }

  private async accessToken(verifier: AccessTokenVerifier, token: string): Promise<Authentication> {
    const result = await verifier.verify(token);
    if (result.kind === 'verified') {
      return {
        kind: 'authenticated',
        principal: {
          actor: { kind: 'oidc', subject: result.subject, display: result.display, displayVerified: result.displayVerified },
          role: result.role,
        },
      };
    }
    if (result.reason === 'unavailable') return { kind: 'unavailable', detail: result.detail };
    return denied(result.reason === 'expired' ? 'token_expired' : 'token_invalid');
  }
}

function denied(reason: DenialReason, actor: ActorRecord | null = null): Authentication {
  return { kind: 'denied', reason, actor };
}
