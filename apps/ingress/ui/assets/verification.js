// How a webhook's deliveries prove their sender: the enable form's choice (bearer secret, Standard
// Webhooks, GitHub, Stripe, Shopify, GitLab, Linear, Sentry, PagerDuty, Zendesk, Svix, and the
// providers with a URL-verification handshake: Slack, Zoom, Discord, Twitch, X, Meta, Microsoft
// Graph), its credential fields, and what each scheme means for the rest of the page (the override,
// the secret panel's steps, rotating, the test delivery, the last handshake). A pasted secret lives
// in its field until the server has it, and nowhere else.
// The per-scheme texts are in sender-schemes.js, sender-rotate-texts.js and sender-setup.js.
import { byId, setError, show } from './dom.js';
import { ROTATE_FORM, TEST_ELSEWHERE } from './sender-rotate-texts.js';
import { HANDSHAKE_SCHEMES, SCHEMES, SECRET_FIELD, VERIFY_TOKEN_FIELD, WHERE_TO_PASTE } from './sender-schemes.js';

/** The one-line "where to paste this" of a handshake provider, or null. */
export function whereToPaste(scheme) {
  return Object.hasOwn(WHERE_TO_PASTE, scheme) ? WHERE_TO_PASTE[scheme] : null;
}

/** Whether the scheme's provider verifies the URL with a handshake. */
export function hasHandshake(scheme) {
  return HANDSHAKE_SCHEMES.includes(scheme);
}

export function isSigned(scheme) {
  return scheme !== 'bearer' && SCHEMES.includes(scheme);
}

/** The webhook's scheme as loaded (bearer until it says otherwise). */
export function schemeOf(webhook) {
  return webhook?.verification?.scheme ?? 'bearer';
}

/** Whether rotating asks for the provider's new credential (every scheme but bearer and Standard Webhooks). */
export function rotateTakesSecret(scheme) {
  return Object.hasOwn(ROTATE_FORM, scheme);
}

export function rotateFormText(scheme) {
  return ROTATE_FORM[scheme];
}

/** What the test delivery section says for a signed webhook, or null for a bearer one. */
export function testElsewhere(scheme) {
  return Object.hasOwn(TEST_ELSEWHERE, scheme) ? TEST_ELSEWHERE[scheme] : null;
}

// ------------------------------------------------------------------ the enable form's choice

/** The scheme chosen in the enable form. */
export function chosenScheme() {
  return document.querySelector('input[name="scheme"]:checked')?.value ?? 'bearer';
}

/** The override as the operator left it while a signed scheme forced it off, restored when they go back to bearer. */
let overrideWanted = false;

/** Shows the secret field and locks the override to what the chosen scheme allows. */
function applyScheme() {
  const scheme = chosenScheme();
  const field = SECRET_FIELD[scheme];
  show(byId('signing-secret-field'), field !== undefined);
  const input = byId('signing-secret');
  if (field) {
    byId('signing-secret-label').textContent = field.label;
    byId('signing-secret-help').textContent = field.help;
    input.required = field.required;
  } else input.required = false;
  show(byId('verify-token-field'), scheme === 'meta');
  byId('verify-token').required = scheme === 'meta';
  setSecretProblem('');

  const override = byId('override');
  const signed = isSigned(scheme);
  if (signed && !override.disabled) overrideWanted = override.checked;
  if (!signed && override.disabled) override.checked = overrideWanted;
  if (signed) override.checked = false;
  override.disabled = signed;
  show(byId('override-signed'), signed);
}

/** Resets the choice to `scheme` (the webhook's, when enabling again), with an empty secret field. */
export function resetVerification(scheme) {
  const radio = document.getElementById(`scheme-${SCHEMES.includes(scheme) ? scheme : 'bearer'}`);
  if (radio) radio.checked = true;
  byId('signing-secret').value = '';
  byId('verify-token').value = '';
  overrideWanted = byId('override').checked;
  byId('override').disabled = false;
  applyScheme();
}

/**
 * The `verification` member of the enable request (undefined for bearer, the spec's default), or
 * `{missing, input}` when a required field was left empty. Discord's public key and Graph's
 * clientState go in their own members; Meta's verify token beside the App Secret.
 */
export function verificationRequest() {
  const scheme = chosenScheme();
  if (!isSigned(scheme)) return { verification: undefined };
  const secret = byId('signing-secret').value;
  const field = SECRET_FIELD[scheme];
  if (secret === '' && field.required) return { missing: field.missing, input: 'signing-secret' };
  const verifyToken = byId('verify-token').value;
  if (scheme === 'meta' && verifyToken === '') return { missing: VERIFY_TOKEN_FIELD.missing, input: 'verify-token' };
  const verification = secret === '' ? { scheme } : { scheme, [field.field ?? 'secret']: secret };
  return { verification: scheme === 'meta' ? { ...verification, verify_token: verifyToken } : verification };
}

/** A problem with the pasted secret, shown under its field (empty: none). */
export function setSecretProblem(message) {
  setError(byId('signing-secret-error'), message);
  const input = byId('signing-secret');
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/** Drops a pasted secret (and Meta's verify token) from the page once the server has it. */
export function forgetPastedSecret() {
  byId('signing-secret').value = '';
  byId('verify-token').value = '';
}

export function wireVerificationChoice() {
  for (const scheme of SCHEMES) byId(`scheme-${scheme}`).addEventListener('change', applyScheme);
  byId('override').addEventListener('change', () => {
    overrideWanted = byId('override').checked;
  });
  window.addEventListener('pagehide', forgetPastedSecret);
}
