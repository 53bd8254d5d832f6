import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';

/** Operators as people: the admin API accepts access tokens (JWT) of this OpenID provider. */
export interface OidcSettings {
  /** Compared exactly with the discovery document's `issuer` and the tokens' `iss` (a trailing slash is kept as given). */
  readonly issuer: string;
  /** The `aud` access tokens meant for the admin API carry. */
  readonly audience: string;
  /** The Config page's public client for the sign-in (authorization code with PKCE); undefined: no sign-in button. */
  readonly clientId: string | undefined;
  /** Where a token names its roles: a claim name, or a dotted path (`realm_access.roles`). */
  readonly rolesClaim: string;
  /** How long the provider's keys are trusted before they are fetched again. */
  readonly jwksCacheMaxAgeMs: number;
}

export interface OidcEnvironment {
  readonly OIDC_ISSUER?: string;
  readonly OIDC_AUDIENCE?: string;
  readonly OIDC_CLIENT_ID?: string;
  readonly OIDC_ROLES_CLAIM?: string;
  readonly OIDC_JWKS_CACHE_SECONDS: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL's host is this machine, where plain http cannot be overheard (`URL.hostname` keeps IPv6 brackets). */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
}

/**
 * OIDC_ISSUER: an https URL (http only on localhost, 127.0.0.1 or [::1]: a provider of one's own
 * machine), without credentials, query or fragment — what OpenID Connect Discovery allows an
 * issuer to be.
 */
export function isIssuerUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url));
  return secure && url.username === '' && url.password === '' && !/[?#]/.test(value);
}

@ValidatorConstraint({ name: 'oidcIssuer' })
export class OidcIssuerValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isIssuerUrl(value);
  }

  defaultMessage(): string {
    return 'OIDC_ISSUER must be an https URL (http only for localhost, 127.0.0.1 or [::1]) without query or fragment';
  }
}

/**
 * The OpenID provider the admin API trusts, or undefined without OIDC_ISSUER. Problems are pushed
 * to `problems`, one sentence each: OIDC_AUDIENCE is required with OIDC_ISSUER (a token for
 * another of the organisation's APIs must not open this one), and neither OIDC_AUDIENCE nor
 * OIDC_CLIENT_ID means anything without it.
 */
export function parseOidc(env: OidcEnvironment, problems: string[]): OidcSettings | undefined {
  const value = (raw: string | undefined): string | undefined => (raw === undefined || raw.trim() === '' ? undefined : raw.trim());
  const issuer = value(env.OIDC_ISSUER);
  const audience = value(env.OIDC_AUDIENCE);
  const clientId = value(env.OIDC_CLIENT_ID);
  if (issuer === undefined) {
    const given = [audience && 'OIDC_AUDIENCE', clientId && 'OIDC_CLIENT_ID'].filter(Boolean);
    if (given.length > 0) problems.push(`${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} OIDC_ISSUER`);
    return undefined;
  }
  if (audience === undefined) {
    problems.push(
      'OIDC_AUDIENCE is required with OIDC_ISSUER: the audience (aud) your identity provider puts in access tokens for this API',
    );
    return undefined;
  }
  return {
    issuer,
    audience,
    clientId,
    rolesClaim: value(env.OIDC_ROLES_CLAIM) ?? 'roles',
    jwksCacheMaxAgeMs: env.OIDC_JWKS_CACHE_SECONDS * 1000,
  };
}
