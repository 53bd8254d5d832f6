// The admin session: which credential the page sends to the admin API, and the calls themselves.
// Two kinds of credential:
// - a pasted token (the bootstrap admin token, or an API key): in sessionStorage (this tab only,
//   gone when it closes) and in memory;
// - a sign-in with the organisation's identity provider: its access token in memory only
//   (oidc-client.js), renewed with its refresh token.
// Either is sent only in the Authorization header of admin API calls, never in a URL.

const TOKEN_KEY = 'wts.adminToken';

/** `{bearer(), renew(), forget()}`, or null when signed out. */
let credential = null;

/** The token this tab was signed in with before (a reload keeps it), or null. */
export function storedToken() {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function forgetStoredToken() {
  try {
    window.sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing was stored.
  }
}

/** Signs in with a pasted token (kept for this tab). */
export function useToken(value) {
  try {
    window.sessionStorage.setItem(TOKEN_KEY, value);
  } catch {
    // Storage refused: the token then lives in memory for this page only.
  }
  credential = { bearer: () => value, renew: async () => false, forget: forgetStoredToken };
}

/** Signs in with another kind of credential (the identity provider's tokens). */
export function useCredential(value) {
  credential = value;
}

/** Forgets the credential, wherever it was kept. */
export function forgetCredential() {
  credential?.forget();
  credential = null;
  forgetStoredToken();
}

/** Raised when the admin API answered 401: the page shows the sign-in form again. */
export class SignedOutError extends Error {
  constructor() {
    super('signed out');
    this.name = 'SignedOutError';
  }
}

let signedOut = () => undefined;

/** `listener(message)` runs when a call finds the session no longer valid. */
export function onSignedOut(listener) {
  signedOut = listener;
}

/**
 * A call to the admin API: `{status, ok, json, text, headers}`. A 401 first renews the credential
 * (the identity provider's refresh token) and tries once more; still 401, it signs out.
 */
export async function api(method, path, body) {
  if (credential === null) throw new SignedOutError();
  const current = credential;
  let response = await request(method, path, current.bearer(), body);
  if (response.status === 401 && (await current.renew())) response = await request(method, path, current.bearer(), body);
  if (response.status === 401) {
    forgetCredential();
    signedOut('Your session is no longer valid: sign in again.');
    throw new SignedOutError();
  }
  return response;
}

/** One request to our own server, with `bearer` (or none). */
export async function request(method, path, bearer, body) {
  const headers = { accept: 'application/json' };
  if (bearer !== null && bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetchOwn(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  const text = await response.text();
  return { status: response.status, ok: response.ok, json: jsonOf(text), text, headers: response.headers };
}

/** A fetch to our own server as the page makes every one: not cached, no cookies, no redirect followed, no referrer. */
export function fetchOwn(method, path, headers, body) {
  return fetch(path, { method, headers, body, cache: 'no-store', credentials: 'omit', redirect: 'error', referrerPolicy: 'no-referrer' });
}

/** An answer's text as JSON; undefined when empty or not JSON. */
export function jsonOf(text) {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A one-line description of a failed API answer (problem+json detail when there is one). A 403
 * `insufficient_role` says which role the action needs, in the server's words.
 */
export function describeFailure(response) {
  const problem = response.json;
  if (problem && typeof problem === 'object') {
    if (problem.code === 'insufficient_role' && typeof problem.detail === 'string') {
      const needed = typeof problem.required_role === 'string' ? ` (needs the ${problem.required_role} role)` : '';
      return `Not allowed for your role${needed}: ${problem.detail}`;
    }
    const parts = [problem.title, problem.detail].filter((part) => typeof part === 'string' && part !== '');
    const errors = Array.isArray(problem.errors) ? `: ${problem.errors.join('; ')}` : '';
    if (parts.length > 0) return `${response.status} ${parts.join(': ')}${errors}`;
  }
  return `The server answered ${response.status}.`;
}
