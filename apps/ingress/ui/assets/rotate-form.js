// Rotate for a webhook whose secret is the provider's (every provider's scheme): instead of a
// confirmation, a small form that takes the provider's new credential (Meta's with its verify
// token, Discord's public key, Graph's clientState). What was pasted is dropped when the form
// closes or the page is left. webhook-panel.js shows the outcome (the view, the secret panel).
import { byId, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { rotateFormText, schemeOf } from './verification.js';

/** Told the successful answer: the Webhook section renders it. */
let onRotated = () => undefined;

/** A 400 `signing_secret_invalid`: the pasted secret (or the missing encryption key) is the problem. */
export function secretRefused(answer) {
  return answer.status === 400 && answer.json?.code === 'signing_secret_invalid' && typeof answer.json.detail === 'string';
}

export function openRotateForm(scheme) {
  const text = rotateFormText(scheme);
  byId('rotate-form-title').textContent = text.title;
  byId('rotate-form-hint').textContent = text.hint;
  byId('rotate-secret-label').textContent = text.label;
  byId('rotate-secret-help').textContent = text.help;
  byId('rotate-secret').value = '';
  byId('rotate-verify-token').value = '';
  show(byId('rotate-verify-token-field'), text.verifyToken === true);
  setRotateProblem('');
  setError(byId('action-error'), '');
  show(byId('rotate-form'), true);
  byId('rotate').setAttribute('aria-expanded', 'true');
  byId('rotate-secret').focus();
}

/** Rotate opens the form (it controls it) only for a webhook that takes the provider's new secret. */
export function renderRotateButton(opensForm) {
  const button = byId('rotate');
  if (opensForm) {
    button.setAttribute('aria-controls', 'rotate-form');
    button.setAttribute('aria-expanded', String(!byId('rotate-form').hidden));
    return;
  }
  closeRotateForm();
  button.removeAttribute('aria-controls');
  button.removeAttribute('aria-expanded');
}

/** Hides the form and drops whatever was pasted into it. */
function closeRotateForm() {
  byId('rotate-secret').value = '';
  byId('rotate-verify-token').value = '';
  setRotateProblem('');
  show(byId('rotate-form'), false);
  const button = byId('rotate');
  if (button.hasAttribute('aria-controls')) button.setAttribute('aria-expanded', 'false');
}

function setRotateProblem(message) {
  setError(byId('rotate-secret-error'), message);
  const input = byId('rotate-secret');
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

async function rotateWithSecret(event) {
  event.preventDefault();
  const text = rotateFormText(schemeOf(loaded.webhook));
  const input = byId('rotate-secret');
  if (input.value === '') {
    setRotateProblem(text.missing);
    input.focus();
    return;
  }
  const verifyToken = byId('rotate-verify-token');
  if (text.verifyToken && verifyToken.value === '') {
    setRotateProblem('Type the verify token Meta will send (the one set there, or the new one you will set).');
    verifyToken.focus();
    return;
  }
  const body = { [text.field ?? 'secret']: input.value, ...(text.verifyToken ? { verify_token: verifyToken.value } : {}) };
  const button = byId('rotate-submit');
  button.disabled = true;
  try {
    const answer = await api('POST', routinePath('/webhook/rotate'), body);
    if (!answer.ok) {
      setRotateProblem(
        secretRefused(answer) ? `The secret was refused: ${answer.json.detail}` : `Could not rotate the secret: ${describeFailure(answer)}`,
      );
      input.focus();
      return;
    }
    closeRotateForm();
    onRotated(answer);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setRotateProblem('Could not reach the server.');
  } finally {
    button.disabled = false;
  }
}

function cancelRotate() {
  closeRotateForm();
  byId('rotate').focus();
}

/** `rotated(answer)`: shows a successful rotation (the answer carries the view, and no secret: it was pasted). */
export function wireRotateForm(rotated) {
  onRotated = rotated;
  byId('rotate-form').addEventListener('submit', (event) => void rotateWithSecret(event));
  byId('rotate-cancel').addEventListener('click', cancelRotate);
  byId('rotate-form').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') cancelRotate();
  });
  window.addEventListener('pagehide', closeRotateForm);
}
