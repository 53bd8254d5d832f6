// The secret of the last enable or rotate, shown once: its panel, the curl example (bearer) or
// the sender's setup steps (signed schemes), the copy buttons, and hiding it for good. A secret the
// operator pasted (GitHub, Stripe) is never in the answer: the panel then shows the steps only.
import { announce, byId, copyText, h, show } from './dom.js';
import { loaded } from './config-state.js';
import { senderSetup } from './sender-setup.js';
import { schemeOf } from './verification.js';

/**
 * The secret of the last enable or rotate: in this variable and the fields of the secret panel,
 * nowhere else (no storage, no URL). Hiding the panel or leaving the page drops it for good.
 */
let shownSecret = null;
/** The scheme of the secret shown: the test delivery can use a bearer secret only. */
let shownScheme = 'bearer';

/** The bearer secret on screen, or null (none shown, or a signing secret the page cannot send as a bearer). */
export function currentSecret() {
  return shownScheme === 'bearer' ? shownSecret : null;
}

const BEARER_TITLE = 'Copy the secret now: it is shown once';
const BEARER_WARNING = [
  'This secret is shown only once.',
  "Store it in the sender's configuration now. The server keeps only a digest of it and this page keeps it only " +
    'until you hide it or leave: it cannot be shown again. If you lose it, rotate the secret.',
];

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

/**
 * After enable or rotate: the URL, and the secret when the service made one (shown once). A bearer
 * secret comes with the curl example; a signed scheme with the steps to set up its sender.
 */
export function showSecret(answer) {
  const scheme = schemeOf(answer);
  const made = typeof answer.secret === 'string';
  const setup = senderSetup(scheme, made);
  shownSecret = made ? answer.secret : null;
  shownScheme = scheme;
  byId('test-secret').value = ''; // an earlier secret no longer works
  byId('secret-url').value = answer.url;
  byId('secret-value').value = shownSecret ?? '';
  show(byId('secret-field'), made);
  byId('secret-title').textContent = setup?.title ?? BEARER_TITLE;
  const [lead, rest] = setup?.warning ?? BEARER_WARNING;
  byId('secret-warning').replaceChildren(h('strong', { text: lead }), ` ${rest}`);
  byId('secret-panel').className = made ? 'callout warning' : 'callout info';
  byId('dismiss-secret').textContent = made ? 'I have stored the secret: hide it' : 'Done: hide these steps';

  byId('curl-example').textContent = setup === null && made ? curlExample(answer.url, answer.secret) : '';
  show(byId('curl-block'), setup === null && made);
  byId('sender-steps-label').textContent = setup?.stepsLabel ?? '';
  byId('sender-steps').replaceChildren(...(setup?.steps ?? []).map((step) => h('li', { text: step })));
  show(byId('sender-steps-block'), setup !== null);

  show(byId('secret-panel'), true);
  if (currentSecret() !== null) byId('test-secret-help').textContent = 'Leave empty to use the secret shown above.';
  byId('secret-title').focus();
}

/** Drops the secret from memory and from the page: it cannot be shown again. */
export function hideSecret() {
  shownSecret = null;
  shownScheme = 'bearer';
  byId('secret-value').value = '';
  byId('secret-url').value = '';
  byId('curl-example').textContent = '';
  byId('sender-steps').replaceChildren();
  show(byId('secret-panel'), false);
  byId('test-secret-help').textContent = 'Paste the secret here: the page has no secret on screen.';
}

function dismissSecret() {
  const hadSecret = shownSecret !== null;
  hideSecret();
  byId('webhook-title').focus();
  announce(hadSecret ? 'The secret is hidden and cannot be shown again. Rotate the secret if you lose it.' : 'The setup steps are hidden.');
}

export function wireSecretPanel() {
  byId('copy-url').addEventListener('click', () => void copyText(byId('secret-url').value, 'URL', byId('secret-url')));
  byId('copy-secret').addEventListener('click', () => void copyText(shownSecret ?? '', 'Secret', byId('secret-value')));
  byId('copy-curl').addEventListener('click', () => void copyText(byId('curl-example').textContent, 'Curl example'));
  byId('dismiss-secret').addEventListener('click', dismissSecret);
  // Leaving the page (or a back/forward cache entry) keeps no secret.
  window.addEventListener('pagehide', hideSecret);
}
