import type { AccessTokenVerifier, RefusedAccessToken, VerifiedAccessToken } from '@wts/application';
import { isLoopbackUrl } from '@wts/config';
import { highestRole } from '@wts/domain';
// jose is pinned to 5.x (5.10.0): 6.x is ESM-only, and this project is CommonJS with its tests
// under ts-jest, which cannot require() an ESM-only package.
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { claimAt, displayOf } from './access-token.claims';

export interface OidcAccessTokenVerifierOptions {
  /** OIDC_ISSUER, compared exactly with the discovery document's `issuer` and every token's `iss`. */
  readonly issuer: string;
  /** OIDC_AUDIENCE: a token must name it in `aud`. */
  readonly audience: string;
  /** OIDC_ROLES_CLAIM: a claim name, or a dotted path when no claim has that name. */
  readonly rolesClaim: string;
  /** How long fetched keys are used before they are fetched again (a retired key is gone after it). */
  readonly jwksCacheMaxAgeMs: number;
  /** Leeway for `exp`, `nbf` and `iat` against this machine's clock (default 30). */
  readonly clockToleranceSeconds?: number;
  /** Limit of each request to the provider: discovery and keys (default 5,000). */
  readonly fetchTimeoutMs?: number;
  /**
   * Least time between two fetches of the keys caused by tokens naming an unknown `kid` (default
   * 10 s, or jwksCacheMaxAgeMs when that is shorter): a rotation is followed at once unless the
   * keys were fetched less than this long ago, and a flood of made-up `kid`s costs the provider
   * one request per period.
   */
  readonly jwksCooldownMs?: number;
  /** Configuration problems found at run time (the provider names another issuer…), once each. */
  readonly onWarning?: (message: string) => void;
}

/** The asymmetric algorithms a provider signs access tokens with; never `none`, never an HMAC. */
export const ACCEPTED_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/**
 * The `typ` header every access token must carry (RFC 9068 §2.1; jose compares it ignoring case and
 * an `application/` prefix, so `application/at+jwt` passes too). It is what tells an access token
 * from an ID token of the same provider: an ID token is signed with the same keys, names the same
 * issuer and, for the page's client, has `aud` = the client id — which is the audience at providers
 * that name the API by the client id (Entra ID, a Keycloak client-id audience).
 */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** A token longer than this is refused unread (providers' access tokens are a few kilobytes). */
export const MAX_TOKEN_LENGTH = 16_384;

const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;
const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
const DEFAULT_JWKS_COOLDOWN_MS = 10_000;
/** A discovery document that names another issuer is asked for again after this long. */
const MISCONFIGURED_RETRY_MS = 60_000;

type KeySource =
  | { readonly kind: 'ready'; readonly keys: JWTVerifyGetKey }
  | { readonly kind: 'misconfigured'; readonly detail: string; readonly until: number };

/** The provider's keys could not be fetched (network, timeout, an answer that is no key set). */
class KeysUnavailable extends Error {}

/**
 * Verifies OpenID Connect access tokens (JWT, RFC 9068) of one provider with jose: `typ` at+jwt
 * (never an ID token), issuer, audience, an accepted algorithm, `exp`.
 *
 * Discovery (`<issuer>/.well-known/openid-configuration`) is read on the first verify and kept;
 * while it cannot be read, every verify answers `unavailable` and the next one tries again
 * (concurrent verifies share one request). A document whose `issuer` is not exactly the configured
 * one is a configuration problem: it is reported once through `onWarning`, every token is refused
 * as `invalid` (a token of that provider would carry the other `iss` and be refused anyway), and
 * discovery is asked again a minute later, so a corrected provider needs no restart. The keys come
 * from the document's `jwks_uri` (https unless on this machine), cached for jwksCacheMaxAgeMs; a
 * token naming an unknown `kid` fetches them again (key rotation). Nothing here logs or returns
 * the token: `detail` holds jose's error code and message only.
 */
export class OidcAccessTokenVerifier implements AccessTokenVerifier {
  private readonly clockToleranceSeconds: number;
  private readonly fetchTimeoutMs: number;
  private readonly jwksCooldownMs: number;
  private known: KeySource | undefined;
  /** The discovery under way: verifies that arrive meanwhile share it. */
  private pending: Promise<KeySource> | undefined;
  private readonly warned = new Set<string>();

  constructor(private readonly options: OidcAccessTokenVerifierOptions) {
    this.clockToleranceSeconds = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    this.jwksCooldownMs = options.jwksCooldownMs ?? Math.min(DEFAULT_JWKS_COOLDOWN_MS, options.jwksCacheMaxAgeMs);
  }

  async verify(token: string): Promise<VerifiedAccessToken | RefusedAccessToken> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
      return refused('invalid', `the token is empty or longer than ${MAX_TOKEN_LENGTH} characters`);
    }
    // Decided from the token alone, before any request to the provider (so even while it is down).
    const shape = signedShapeProblem(token);
    if (shape) return refused('invalid', shape, token);
    let source: KeySource;
    try {
      source = await this.keySource();
    } catch (error) {
      return refused('unavailable', withoutToken(`discovery of ${this.options.issuer} failed: ${describe(error)}`, token));
    }
    if (source.kind === 'misconfigured') return refused('invalid', source.detail);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, source.keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: [...ACCEPTED_ALGORITHMS],
        typ: ACCESS_TOKEN_TYPE,
        clockTolerance: this.clockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      return refusal(error, token);
    }
    return accepted(payload, this.options.rolesClaim, token);
  }

  /** Discovery, read once and kept; forgotten when it failed, asked again later when misconfigured. */
  private async keySource(): Promise<KeySource> {
    const known = this.known;
    if (known && (known.kind === 'ready' || Date.now() < known.until)) return known;
    this.pending ??= this.discover()
      .then((source) => (this.known = source))
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async discover(): Promise<KeySource> {
    const { issuer } = this.options;
    // OpenID Connect Discovery: a terminating slash of the issuer is removed before the suffix.
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.fetchTimeoutMs) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const document: unknown = await response.json();
    if (typeof document !== 'object' || document === null) throw new Error(`${url} is not a discovery document`);
    const { issuer: named, jwks_uri: jwksUri } = document as Record<string, unknown>;
    if (typeof named !== 'string' || typeof jwksUri !== 'string') throw new Error(`${url} names no issuer or no jwks_uri`);
    if (named !== issuer) {
      return this.misconfigured(
        `the provider's discovery document names the issuer ${JSON.stringify(named)}, not OIDC_ISSUER ${JSON.stringify(issuer)}`,
      );
    }
    const jwksUrl = URL.canParse(jwksUri) ? new URL(jwksUri) : undefined;
    if (!jwksUrl || !(jwksUrl.protocol === 'https:' || (jwksUrl.protocol === 'http:' && isLoopbackUrl(jwksUrl)))) {
      return this.misconfigured(`the provider's jwks_uri ${JSON.stringify(jwksUri)} is not an https URL`);
    }
    const remote = createRemoteJWKSet(jwksUrl, {
      cacheMaxAge: this.options.jwksCacheMaxAgeMs,
      cooldownDuration: this.jwksCooldownMs,
      timeoutDuration: this.fetchTimeoutMs,
    });
    const keys: JWTVerifyGetKey = async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        // No key, or several, for the token's kid and alg: the token's fault. Anything else is the fetch.
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
        throw new KeysUnavailable(`the keys at ${jwksUrl.href} cannot be had: ${describe(error)}`);
      }
    };
    return { kind: 'ready', keys };
  }

  private misconfigured(detail: string): KeySource {
    if (!this.warned.has(detail)) {
      this.warned.add(detail);
      this.options.onWarning?.(`OpenID Connect is misconfigured, every access token is refused: ${detail}`);
    }
    return { kind: 'misconfigured', detail, until: Date.now() + MISCONFIGURED_RETRY_MS };
  }
}

/** One line for the start-up log: what the admin API trusts (there is no secret in it). */
export function describeOidcVerifier(
  options: Pick<OidcAccessTokenVerifierOptions, 'issuer' | 'audience' | 'rolesClaim' | 'jwksCacheMaxAgeMs'>,
): string {
  return `OpenID Connect: access tokens of ${options.issuer} for audience ${options.audience}, roles from "${options.rolesClaim}", keys kept ${Math.round(options.jwksCacheMaxAgeMs / 1000)} s`;
}

/** Why the token is not a JWS of an accepted algorithm, read from its header alone; undefined when it is. */
function signedShapeProblem(token: string): string | undefined {
  let alg: unknown;
  try {
    ({ alg } = decodeProtectedHeader(token));
  } catch {
    return 'ERR_JWT_INVALID: the token is not a JWT (its header cannot be read)';
  }
  if (token.split('.').length !== 3) return 'ERR_JWS_INVALID: the token is not a signed JWT (JWS compact serialization)';
  if (typeof alg !== 'string' || !ACCEPTED_ALGORITHMS.includes(alg)) {
    return `ERR_JOSE_ALG_NOT_ALLOWED: the token's alg is none of ${ACCEPTED_ALGORITHMS.join(', ')}`;
  }
  return undefined;
}

function accepted(payload: JWTPayload, rolesClaim: string, token: string): VerifiedAccessToken | RefusedAccessToken {
  const subject = payload.sub;
  if (typeof subject !== 'string' || subject === '') return refused('invalid', 'the token has no sub claim', token);
  return { kind: 'verified', subject, ...displayOf(payload, subject), role: highestRole(claimAt(payload, rolesClaim)) };
}

function refusal(error: unknown, token: string): RefusedAccessToken {
  if (error instanceof KeysUnavailable) return refused('unavailable', error.message, token);
  if (error instanceof errors.JWTExpired) return refused('expired', `${error.code}: ${error.message}`, token);
  return refused('invalid', describe(error), token);
}

function refused(reason: RefusedAccessToken['reason'], detail: string, token?: string): RefusedAccessToken {
  return { kind: 'refused', reason, detail: token === undefined ? detail : withoutToken(detail, token) };
}

function describe(error: unknown): string {
  if (error instanceof errors.JOSEError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}

/** jose's messages never quote the token; this makes sure no part of it ever reaches a log. */
function withoutToken(detail: string, token: string): string {
  let clean = detail;
  for (const part of [token, ...token.split('.')]) {
    if (part.length >= 8) clean = clean.split(part).join('[token]');
  }
  return clean;
}
