import type { OperatorRole } from '@wts/contracts';

/** A valid access token: who it names and the highest role of ours its roles claim grants (if any). */
export interface VerifiedAccessToken {
  readonly kind: 'verified';
  /** The token's `sub`. */
  readonly subject: string;
  /** What people recognise: `email` when `email_verified` is true, else `preferred_username`, else the subject. */
  readonly display: string;
  /** Whether the provider vouches for the display (a verified email): only then does the audit trail's `?actor=` match it. */
  readonly displayVerified: boolean;
  readonly role: OperatorRole | undefined;
}

/**
 * Why a token was not accepted. `invalid`: signature, algorithm, issuer, audience, not-before or
 * shape (the caller answers 401); `expired`: past `exp` (401); `unavailable`: the issuer's discovery
 * document or keys cannot be had right now, so the token can be neither accepted nor refused (503).
 * `detail` is for logs and the audit trail: it never holds the token.
 */
export interface RefusedAccessToken {
  readonly kind: 'refused';
  readonly reason: 'invalid' | 'expired' | 'unavailable';
  readonly detail: string;
}

/** Port: checks an OpenID Connect access token (JWT). Adapter: jose against OIDC_ISSUER's discovery and JWKS. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<VerifiedAccessToken | RefusedAccessToken>;
}
