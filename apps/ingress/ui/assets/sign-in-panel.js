// Signing in and out on both pages. How is told by the server (GET /ui/sign-in-settings): a
// "Sign in with your organisation" button when it names an identity provider, and the box for
// the bootstrap admin token or an API key. Once signed in, GET /admin/me says who and which
// role; the header shows it, and the page starts.
import { announce, byId, setError, show } from './dom.js';
import { actorText, setOperator } from './roles.js';
import {
  SignedOutError,
  api,
  describeFailure,
  forgetCredential,
  onSignedOut,
  request,
  storedToken,
  useCredential,
  useToken,
} from './session.js';
import * as oidc from './oidc-client.js';

const SIGNED_OUT_SETTINGS = { oidc: null, bootstrap_token: true };

async function loadSettings() {
  try {
    const answer = await request('GET', '/ui/sign-in-settings', null);
    return answer.ok && answer.json && typeof answer.json === 'object' ? answer.json : SIGNED_OUT_SETTINGS;
  } catch {
    return SIGNED_OUT_SETTINGS;
  }
}

/** The identity provider's tokens as the admin API's credential (memory only). */
const oidcCredential = { bearer: oidc.accessToken, renew: oidc.refresh, forget: oidc.forget };

/**
 * Runs `start(me)` once signed in: at once when this tab holds a token or comes back from the
 * identity provider, after a silent sign-in with it when this tab signed in with it before, else
 * after the person signs in. A later 401 (the credential no longer valid) shows the sign-in again.
 */
export function withSession(start) {
  const signin = byId('signin');
  const form = byId('signin-form');
  const input = byId('admin-token');
  const error = byId('signin-error');
  const oidcError = byId('oidc-signin-error');
  const main = byId('main');
  const signout = byId('signout');
  let settings = SIGNED_OUT_SETTINGS;
  let signedInWith = null;

  const showSignIn = (message, { oidcMessage } = {}) => {
    signedInWith = null;
    setOperator(null);
    show(main, false);
    show(signout, false);
    show(byId('whoami'), false);
    show(signin, true);
    show(byId('oidc-signin'), settings.oidc !== null);
    byId('admin-token-label').textContent = settings.bootstrap_token ? 'Admin token or API key' : 'API key';
    setError(error, message ?? '');
    setError(oidcError, oidcMessage ?? '');
    input.value = '';
    (settings.oidc !== null && !message ? byId('oidc-signin-button') : input).focus();
  };
  onSignedOut((message) => showSignIn(message));

  const started = (me, kind) => {
    signedInWith = kind;
    setOperator(me);
    byId('whoami-name').textContent = actorText(me.actor);
    byId('whoami-role').textContent = me.role ?? 'no role: ask an admin for one';
    show(signin, false);
    show(byId('whoami'), true);
    show(signout, true);
    show(main, true);
    start(me);
  };

  /** Asks who the credential in use names; a credential the API refuses signs out. */
  const whoAmI = async (kind) => {
    try {
      const answer = await api('GET', '/admin/me');
      if (answer.ok) return started(answer.json, kind);
      forgetCredential();
      showSignIn(`Could not sign in: ${describeFailure(answer)}`);
    } catch (failure) {
      // A 401 has shown the sign-in already (onSignedOut).
      if (!(failure instanceof SignedOutError)) showSignIn('Could not reach the server. Check your connection and try again.');
    }
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const candidate = input.value.trim();
    if (candidate === '') {
      setError(error, settings.bootstrap_token ? 'Enter the admin token or an API key.' : 'Enter an API key.');
      input.focus();
      return;
    }
    const submit = byId('signin-submit');
    submit.disabled = true;
    try {
      const response = await request('GET', '/admin/me', candidate);
      if (response.status === 200) {
        useToken(candidate);
        input.value = '';
        setError(error, '');
        announce('Signed in.');
        started(response.json, 'token');
      } else if (response.status === 401) {
        setError(error, 'That token was not accepted. Check it and try again.');
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

  byId('oidc-signin-button').addEventListener('click', async () => {
    try {
      await oidc.beginSignIn(settings.oidc);
    } catch {
      setError(oidcError, 'Could not reach your identity provider. Try again, or ask an operator to check its address.');
    }
  });

  signout.addEventListener('click', () => {
    const viaProvider = signedInWith === 'oidc';
    forgetCredential();
    // The provider ends its own session and sends the browser back; otherwise a fresh page:
    // nothing of this session (a secret on screen included) survives.
    if (!(viaProvider && oidc.signOut())) window.location.replace(window.location.pathname);
  });

  void (async () => {
    settings = await loadSettings();
    const resumed = settings.oidc === null ? 'none' : await resumeWithProvider(settings.oidc, showSignIn);
    if (resumed === 'signed_in') return whoAmI('oidc');
    if (resumed === 'handled') return undefined;
    const token = storedToken();
    if (token !== null) {
      useToken(token);
      return whoAmI('token');
    }
    if (settings.oidc !== null && oidc.wasSignedIn()) {
      try {
        return await oidc.beginSignIn(settings.oidc, { silent: true });
      } catch {
        oidc.forget();
      }
    }
    return showSignIn();
  })();
}

/**
 * Completes a sign-in the provider answered on this load: `signed_in`; `handled` when the sign-in
 * form shows why it failed, or the page is leaving for the one the sign-in started from; `none`
 * when this load is no such answer.
 */
async function resumeWithProvider(settings, showSignIn) {
  const answer = oidc.takeAuthorizationResponse();
  if (answer === null) return 'none';
  if (answer.forwarded) return 'handled';
  try {
    await oidc.completeSignIn(settings, answer);
    useCredential(oidcCredential);
    return 'signed_in';
  } catch (failure) {
    oidc.forget();
    if (failure instanceof oidc.SignInError && failure.interactive) {
      showSignIn(undefined, { oidcMessage: 'Your session with your organisation has ended: sign in again.' });
    } else {
      const why = failure instanceof oidc.SignInError ? failure.message : `The sign-in could not be completed (${failure.message}).`;
      showSignIn(undefined, { oidcMessage: why });
    }
    return 'handled';
  }
}
