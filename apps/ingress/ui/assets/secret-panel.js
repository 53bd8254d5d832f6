// The secret of the last enable or rotate, shown once: its panel, the curl example, the copy
// buttons, and hiding it for good.
import { announce, byId, copyText, show } from './dom.js';
import { loaded } from './config-state.js';

/**
 * The secret of the last enable or rotate: in this variable and the fields of the secret panel,
 * nowhere else (no storage, no URL). Hiding the panel or leaving the page drops it for good.
 */
let shownSecret = null;

/** The secret on screen, or null. */
export function currentSecret() {
  return shownSecret;
}

/** POSIX shell single-quoting, so the example is safe to paste whatever the values hold. */
function shellQuote(value) {
  return `'${String(value).replaceAll("'", "'\\''")}'`;
}

function curlExample(url, secret) {
  const webhook = loaded.webhook;
  const body = webhook.account_override_allowed
    ? JSON.stringify({ account_email: webhook.default_account, data: { hello: 'world' } })
    : JSON.stringify({ data: { hello: 'world' } });
  return [
    `curl -i -X POST ${shellQuote(url)} \\`,
    `  -H ${shellQuote(`Authorization: Bearer ${secret}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'X-Service-Idempotency-Key: event-0001' \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}

export function showSecret(answer) {
  shownSecret = answer.secret;
  byId('test-secret').value = ''; // an earlier secret no longer works
  byId('secret-url').value = answer.url;
  byId('secret-value').value = answer.secret;
  byId('curl-example').textContent = curlExample(answer.url, answer.secret);
  show(byId('secret-panel'), true);
  byId('test-secret-help').textContent = 'Leave empty to use the secret shown above.';
  byId('secret-title').focus();
}

/** Drops the secret from memory and from the page: it cannot be shown again. */
export function hideSecret() {
  shownSecret = null;
  byId('secret-value').value = '';
  byId('secret-url').value = '';
  byId('curl-example').textContent = '';
  show(byId('secret-panel'), false);
  byId('test-secret-help').textContent = 'Paste the secret here: the page has no secret on screen.';
}

function dismissSecret() {
  hideSecret();
  byId('webhook-title').focus();
  announce('The secret is hidden and cannot be shown again. Rotate the secret if you lose it.');
}

export function wireSecretPanel() {
  byId('copy-url').addEventListener('click', () => void copyText(byId('secret-url').value, 'URL', byId('secret-url')));
  byId('copy-secret').addEventListener('click', () => void copyText(shownSecret ?? '', 'Secret', byId('secret-value')));
  byId('copy-curl').addEventListener('click', () => void copyText(byId('curl-example').textContent, 'Curl example'));
  byId('dismiss-secret').addEventListener('click', dismissSecret);
  // Leaving the page (or a back/forward cache entry) keeps no secret.
  window.addEventListener('pagehide', hideSecret);
}
