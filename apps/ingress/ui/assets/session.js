// The admin session: the token lives in sessionStorage (this tab only, gone when it closes) and
// in memory; it is sent only in the Authorization header of admin API calls, never in a URL.
import { announce, byId, setError, show } from './dom.js';

const TOKEN_KEY = 'wts.adminToken';

let token = readStoredToken();

function readStoredToken() {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function storeToken(value) {
  token = value;
  try {
    if (value === null) window.sessionStorage.removeItem(TOKEN_KEY);
    else window.sessionStorage.setItem(TOKEN_KEY, value);
  } catch {
    // Storage refused: the token then lives in memory for this page only.
  }
}

/** Raised when the admin API answered 401: the page shows the sign-in form again. */
export class SignedOutError extends Error {
  constructor() {
    super('signed out');
    this.name = 'SignedOutError';
  }
}

let onSignedOut = () => undefined;

/** A call to the admin API: `{status, ok, json, text, headers}`. 401 signs out. */
export async function api(method, path, body) {
  if (token === null) throw new SignedOutError();
  const response = await request(method, path, token, body);
  if (response.status === 401) {
    storeToken(null);
    onSignedOut('Your session is no longer valid: sign in again.');
    throw new SignedOutError();
  }
  return response;
}

async function request(method, path, bearer, body) {
  const headers = { authorization: `Bearer ${bearer}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
    redirect: 'error',
    referrerPolicy: 'no-referrer',
  });
  const text = await response.text();
  let json;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, ok: response.ok, json, text, headers: response.headers };
}

/** A one-line description of a failed API answer (problem+json detail when there is one). */
export function describeFailure(response) {
  const problem = response.json;
  if (problem && typeof problem === 'object') {
    const parts = [problem.title, problem.detail].filter((part) => typeof part === 'string' && part !== '');
    const errors = Array.isArray(problem.errors) ? `: ${problem.errors.join('; ')}` : '';
    if (parts.length > 0) return `${response.status} ${parts.join(': ')}${errors}`;
  }
  return `The server answered ${response.status}.`;
}

/**
 * Runs `start` once signed in: at once when this tab already holds a token, else after the
 * sign-in form was submitted with a token the admin API accepts. A later 401 shows the form again.
 */
export function withSession(start) {
  const signin = byId('signin');
  const form = byId('signin-form');
  const input = byId('admin-token');
  const error = byId('signin-error');
  const main = byId('main');
  const signout = byId('signout');

  const showSignIn = (message) => {
    show(main, false);
    show(signout, false);
    show(signin, true);
    setError(error, message ?? '');
    input.value = '';
    input.focus();
  };
  onSignedOut = showSignIn;

  const started = () => {
    show(signin, false);
    show(signout, true);
    show(main, true);
    start();
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const candidate = input.value.trim();
    if (candidate === '') {
      setError(error, 'Enter the admin token.');
      input.focus();
      return;
    }
    const submit = byId('signin-submit');
    submit.disabled = true;
    try {
      const response = await request('GET', '/admin/accounts', candidate);
      if (response.status === 200) {
        storeToken(candidate);
        input.value = '';
        setError(error, '');
        announce('Signed in.');
        started();
      } else if (response.status === 401) {
        setError(error, 'That admin token was not accepted. Check it and try again.');
        input.focus();
        input.select();
      } else {
        setError(error, `Could not sign in: ${describeFailure(response)}`);
      }
    } catch {
      setError(error, 'Could not reach the server. Check your connection and try again.');
    } finally {
      submit.disabled = false;
    }
  });

  signout.addEventListener('click', () => {
    storeToken(null);
    // A fresh page: nothing of this session (a secret on screen included) survives.
    window.location.replace(window.location.pathname);
  });

  if (token === null) showSignIn();
  else started();
}
