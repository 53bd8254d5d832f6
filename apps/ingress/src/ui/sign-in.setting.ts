/**
 * What the Config page needs to sign people in with the organisation's identity provider
 * (authorization code with PKCE, a public client: no secret). Public: it names the provider and
 * the client, nothing secret. `oidc` is null when OIDC_ISSUER is not set.
 */
export interface SignInSettings {
  readonly oidc: {
    readonly issuer: string;
    readonly client_id: string;
    /** The API's audience: asked for as the `resource` / `audience` where providers need it. */
    readonly audience: string;
    readonly scope: string;
  } | null;
  /** Whether the bootstrap ADMIN_TOKEN is accepted (the page offers to paste it). */
  readonly bootstrap_token: boolean;
}

export class SignInSettingsHolder {
  constructor(readonly settings: SignInSettings) {}
}
