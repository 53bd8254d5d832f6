// Signing in with the organisation's identity provider: the authorization code flow with PKCE as
// a public client (no secret), through oauth4webapi (served from node_modules, imported only when
// the server names a provider). The provider sends people back to REDIRECT_PATH on this origin:
// that one URL is what operators register at their provider, as redirect URI and as post-logout
// redirect URI.
//
// What is kept where:
// - the access and refresh tokens: in this module's memory only, never in storage or a cookie;
//   the ID token is checked at sign-in (signature, nonce: oauth4webapi) and not kept. A reload or another page of the Config page signs in again: silently (prompt=none)
//   when this tab signed in before and the provider's session is still alive;
// - the PKCE verifier, state, nonce and the page to return to: in sessionStorage, for the round
//   trip to the provider only (removed as soon as the answer is read);
// - that this tab is signed in with the provider (a flag, no token): in sessionStorage.

export const REDIRECT_PATH = '/ui/';
const PENDING_KEY = 'wts.oidc.pending';
const ACTIVE_KEY = 'wts.oidc.active';
/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_SECONDS = 60;
/** Provider answers to prompt=none that mean "sign in by hand". */
const INTERACTIVE_ERRORS = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

let oauth = null;
let provider = null;
let tokens = null;
let refreshTimer = null;

export function redirectUri() {
  return `${window.location.origin}${REDIRECT_PATH}`;
}

/** Whether this tab signed in with the provider before (so a reload may try silently). */
export function wasSignedIn() {
  return readStorage(ACTIVE_KEY) === '1';
}

/** The provider's metadata (discovery at the issuer) and this client, once per page. */
async function connect(settings) {
  if (provider !== null) return provider;
  oauth ??= await import('./vendor/oauth4webapi.js');
  const issuer = new URL(settings.issuer);
  // Plain http only for a provider on this machine (the server refuses any other http issuer).
  const options = { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
  provider = { as, client: { client_id: settings.client_id }, settings, options };
  return provider;
}

/** Sends the browser to the provider's sign-in; `silent`: prompt=none (no page shown when its session is alive). */
export async function beginSignIn(settings, { silent = false } = {}) {
  const { as } = await connect(settings);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const returnTo = window.location.pathname;
  writeStorage(PENDING_KEY, JSON.stringify({ state, nonce, verifier, returnTo, silent }));
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', settings.client_id);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', settings.scope);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('nonce', nonce);
  // The API as the token's audience, when it is named by a URL: `resource` (RFC 8707: an absolute
  // URI) and `audience` (Auth0); others ignore them. An audience that is no URL (Entra ID's
  // application id, whose v2 endpoint refuses `resource`; a Keycloak client id) is asked for by
  // scope instead (OIDC_SCOPE).
  if (/^https?:\/\//.test(settings.audience)) {
    url.searchParams.set('resource', settings.audience);
    url.searchParams.set('audience', settings.audience);
  }
  if (silent) url.searchParams.set('prompt', 'none');
  window.location.assign(url.href);
}

/**
 * The provider's answer to a sign-in this tab started, if this load is one: `{pending, search}`;
 * `forwarded` when it was handed on to the page the sign-in started from (this page is leaving);
 * null otherwise. The answer's code leaves the address bar at once.
 */
export function takeAuthorizationResponse() {
  const pending = parse(readStorage(PENDING_KEY));
  const here = new URLSearchParams(window.location.search);
  const arrived = here.has('state') && (here.has('code') || here.has('error'));
  if (arrived) window.history.replaceState(null, '', window.location.pathname);
  if (pending === null || typeof pending.state !== 'string') return null;
  if (arrived) {
    const returnTo = typeof pending.returnTo === 'string' && pending.returnTo.startsWith('/ui/') ? pending.returnTo : REDIRECT_PATH;
    if (returnTo !== window.location.pathname) {
      writeStorage(PENDING_KEY, JSON.stringify({ ...pending, search: here.toString() }));
      window.location.replace(returnTo);
      return { forwarded: true };
    }
    removeStorage(PENDING_KEY);
    return { pending, search: here.toString() };
  }
  if (typeof pending.search === 'string') {
    removeStorage(PENDING_KEY);
    return { pending, search: pending.search };
  }
  return null;
}

/** Thrown when the provider answered with an error; `interactive`: a silent sign-in needs a click. */
export class SignInError extends Error {
  constructor(message, { interactive = false } = {}) {
    super(message);
    this.name = 'SignInError';
    this.interactive = interactive;
  }
}

/** Exchanges the answer's code for tokens (PKCE verifier, state and nonce checked by oauth4webapi). */
export async function completeSignIn(settings, { pending, search }) {
  const { as, client, options } = await connect(settings);
  let params;
  try {
    params = oauth.validateAuthResponse(as, client, new URLSearchParams(search), pending.state);
  } catch (failure) {
    if (failure instanceof oauth.AuthorizationResponseError) {
      forget();
      const detail = failure.error_description ? `${failure.error}: ${failure.error_description}` : failure.error;
      throw new SignInError(`The identity provider did not sign you in (${detail}).`, {
        interactive: INTERACTIVE_ERRORS.has(failure.error),
      });
    }
    throw failure;
  }
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri(), pending.verifier, options);
  keep(await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true }));
  writeStorage(ACTIVE_KEY, '1');
}

function keep(result) {
  tokens = {
    access: result.access_token,
    refresh: result.refresh_token ?? tokens?.refresh ?? null,
  };
  window.clearTimeout(refreshTimer);
  const lifetime = Number(result.expires_in);
  if (tokens.refresh !== null && Number.isFinite(lifetime) && lifetime > 0) {
    const delay = Math.max(5, lifetime - REFRESH_MARGIN_SECONDS) * 1000;
    refreshTimer = window.setTimeout(() => void refresh(), delay);
  }
}

/** The access token for the admin API, or null. */
export function accessToken() {
  return tokens?.access ?? null;
}

/** A fresh access token with the refresh token, if one was issued: true when it worked. */
export async function refresh() {
  if (provider === null || tokens?.refresh == null) return false;
  const { as, client, options } = provider;
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh, options);
    keep(await oauth.processRefreshTokenResponse(as, client, response));
    return true;
  } catch {
    return false;
  }
}

/** Forgets the tokens (and that this tab was signed in): nothing of the session is left in the page. */
export function forget() {
  window.clearTimeout(refreshTimer);
  tokens = null;
  removeStorage(ACTIVE_KEY);
  removeStorage(PENDING_KEY);
}

/**
 * Signs out: forgets the tokens, then ends the provider's session where it offers RP-initiated
 * logout (back to REDIRECT_PATH). Returns false when there is no such endpoint (the caller reloads).
 * The request names this client and where to come back (`client_id`, `post_logout_redirect_uri`:
 * OpenID Connect RP-Initiated Logout 1.0 §2), never the ID token: a URL ends up in the provider's
 * logs and the browser's history. The provider may ask the person to confirm.
 */
export function signOut() {
  forget();
  const endpoint = provider?.as.end_session_endpoint;
  if (typeof endpoint !== 'string') return false;
  const url = new URL(endpoint);
  url.searchParams.set('client_id', provider.client.client_id);
  url.searchParams.set('post_logout_redirect_uri', redirectUri());
  window.location.assign(url.href);
  return true;
}

function parse(text) {
  try {
    const value = text === null ? null : JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

function readStorage(key) {
  try {
    return window.sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStorage(key, value) {
  try {
    window.sessionStorage.setItem(key, value);
  } catch {
    // Storage refused: the round trip cannot be checked, so the sign-in will fail with a message.
  }
}

function removeStorage(key) {
  try {
    window.sessionStorage.removeItem(key);
  } catch {
    // Nothing was stored.
  }
}
