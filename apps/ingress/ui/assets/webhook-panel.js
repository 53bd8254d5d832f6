// The Config page's routine facts and Webhook section: state, setup (verification, default
// account, override, Enable), Rotate and Disable behind a confirmation dialog — or, for a webhook
// whose secret is the provider's (GitHub, Stripe), Rotate through a small form that takes the new
// one. The hold (Hold runs, Release) is hold-panel.js's part of the section. Enabling, rotating and
// disabling need the operator role: below it the controls are hidden and the section says why.
// The rotate-with-secret form is rotate-form.js's; the payload retention, retention-panel.js's.
import { announce, byId, copyText, setError, show } from './dom.js';
import { STATE_LABELS, badgeOf, verificationLabel } from './labels.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { currentSecret, hideSecret, showSecret } from './secret-panel.js';
import { loadAttempts } from './activity-listings.js';
import { renderHandshake } from './handshake-status.js';
import { confirmAction } from './confirm-dialog.js';
import { may, roleNote } from './roles.js';
import { loadAudit } from './audit-trail.js';
import { renderHold } from './hold-panel.js';
import { renderRetention, wireRetentionPanel } from './retention-panel.js';
import { renderRules } from './rules-panel.js';
import { openRotateForm, renderRotateButton, secretRefused, wireRotateForm } from './rotate-form.js';
import {
  forgetPastedSecret,
  isSigned,
  resetVerification,
  rotateTakesSecret,
  schemeOf,
  setSecretProblem,
  testElsewhere,
  verificationRequest,
  wireVerificationChoice,
} from './verification.js';

// ------------------------------------------------------------------ routine

function accountEmail(accountId) {
  return loaded.accounts.find((account) => account.id === accountId)?.email ?? accountId;
}

export function renderRoutine() {
  const routine = loaded.routine;
  document.title = `Config: ${routine.name} — Webhook trigger service`;
  byId('routine-name').textContent = routine.name;
  byId('routine-mode').textContent = routine.mode;
  const tools = routine.tools.map((tool) => (tool.sends_externally ? `${tool.name} (sends externally)` : tool.name));
  byId('routine-tools').textContent = tools.length === 0 ? 'none' : tools.join(', ');
  const scope = routine.account_scope.map(accountEmail);
  byId('routine-scope').textContent = scope.length === 0 ? 'none' : scope.join(', ');
}

// ------------------------------------------------------------------ webhook state and setup

/** Active accounts inside the routine's scope: the only possible default accounts. */
function eligibleAccounts() {
  return loaded.accounts.filter((account) => account.active && loaded.routine.account_scope.includes(account.id));
}

export function renderWebhook({ resetForm }) {
  const webhook = loaded.webhook;
  const badge = badgeOf(webhook.state, webhook.blocked);
  const state = byId('webhook-state');
  state.textContent = badge.text;
  state.className = badge.className;
  byId('webhook-substate').textContent = webhook.blocked ? `(webhook ${STATE_LABELS[webhook.state]?.toLowerCase() ?? webhook.state})` : '';

  show(byId('blocked-panel'), webhook.blocked);
  byId('blocked-reason').textContent = webhook.blocked_reason ?? 'The routine combines untrusted input with autonomous external sending.';
  byId('blocked-remedy').textContent =
    webhook.blocked_remedy ?? 'Switch the routine to supervised mode, or remove the tools that send externally.';

  const configured = webhook.state !== 'not_configured';
  show(byId('webhook-details'), configured);
  byId('webhook-url').textContent = webhook.url ?? '';
  byId('webhook-verification').textContent = verificationLabel(schemeOf(webhook));
  renderHandshake(configured ? schemeOf(webhook) : 'bearer');
  byId('webhook-default').textContent = webhook.default_account ?? '';
  byId('webhook-override').textContent = webhook.account_override_allowed ? 'Allowed' : 'Not allowed';

  const enabled = webhook.state === 'enabled';
  const operates = may('operator');
  show(byId('enable-form'), !enabled && operates);
  show(byId('webhook-actions'), enabled && operates);
  renderRotateButton(enabled && operates && rotateTakesSecret(schemeOf(webhook)));
  const note = byId('webhook-role-note');
  note.textContent = operates
    ? ''
    : roleNote('operator', enabled ? 'Rotating the secret or disabling the webhook' : 'Enabling the webhook');
  show(note, !operates);
  byId('enable-title').textContent = configured ? 'Enable again' : 'Set up the webhook';
  byId('enable-hint').textContent = configured
    ? "Enabling again keeps the URL and takes a new secret: one is made and shown once, or you paste the provider's."
    : 'Choose how senders prove who they are and a default account, then enable. A secret the service makes is shown once.';
  if (resetForm && !enabled) renderSetupForm();

  // The page can send a test only with a bearer secret: it cannot sign for a provider or a sender.
  const elsewhere = enabled ? testElsewhere(schemeOf(webhook)) : null;
  show(byId('test-intro'), elsewhere === null);
  show(byId('test-form'), enabled && elsewhere === null);
  show(byId('test-unavailable'), !enabled);
  byId('test-signed').textContent = elsewhere ?? '';
  show(byId('test-signed'), elsewhere !== null);
  byId('test-secret-help').textContent =
    currentSecret() === null ? 'Paste the secret here: the page has no secret on screen.' : 'Leave empty to use the secret shown above.';
  renderHold();
  renderRetention();
  renderRules();
}

function renderSetupForm() {
  const select = byId('default-account');
  const eligible = eligibleAccounts();
  select.replaceChildren(
    ...eligible.map((account) => {
      const extra = [account.primary ? 'primary' : '', account.aliases.length > 0 ? `aliases: ${account.aliases.join(', ')}` : '']
        .filter((part) => part !== '')
        .join('; ');
      return new Option(extra === '' ? account.email : `${account.email} (${extra})`, account.email);
    }),
  );
  const preferred =
    eligible.find((account) => account.email === loaded.webhook.default_account) ??
    eligible.find((account) => account.primary) ??
    eligible[0];
  if (preferred) select.value = preferred.email;
  select.disabled = eligible.length === 0;
  byId('enable').disabled = eligible.length === 0;
  show(byId('no-accounts'), eligible.length === 0);
  byId('override').checked = loaded.webhook.account_override_allowed;
  resetVerification(schemeOf(loaded.webhook));
  setError(byId('enable-error'), '');
}

async function enable(event) {
  event.preventDefault();
  const error = byId('enable-error');
  const button = byId('enable');
  const defaultAccount = byId('default-account').value;
  if (defaultAccount === '') {
    setError(error, 'Choose a default account.');
    byId('default-account').focus();
    return;
  }
  const { verification, missing, input } = verificationRequest();
  if (missing) {
    setSecretProblem(missing);
    byId(input).focus();
    return;
  }
  setSecretProblem('');
  button.disabled = true;
  try {
    const answer = await api('POST', routinePath('/webhook/enable'), {
      default_account: defaultAccount,
      account_override_allowed: !isSigned(verification?.scheme) && byId('override').checked,
      ...(verification ? { verification } : {}),
    });
    if (!answer.ok) {
      if (secretRefused(answer)) {
        // In place, under the secret: the server's words say what is wrong with it.
        setError(error, '');
        setSecretProblem(`The secret was refused: ${answer.json.detail}`);
        byId('signing-secret').focus();
      } else setError(error, `Could not enable the webhook: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    forgetPastedSecret();
    loaded.webhook = stripSecret(answer.json);
    renderWebhook({ resetForm: false });
    showSecret(answer.json);
    announce(
      typeof answer.json.secret === 'string'
        ? 'Webhook enabled. Copy the URL and the secret now: the secret is shown once.'
        : 'Webhook enabled. Set up the sender with the URL and the secret you pasted.',
    );
    void loadAttempts();
    void loadAudit();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  } finally {
    button.disabled = false;
  }
}

function stripSecret(answer) {
  const { secret: _secret, ...view } = answer;
  return view;
}

// ------------------------------------------------------------------ rotate and disable

/**
 * Asks, then POSTs `/webhook/{action}`; `done(answer)` shows the outcome. A refusal or a failed
 * call leaves focus on the button that asked.
 */
async function confirmedAction(action, confirmation, failureText, done) {
  const trigger = byId(action);
  if (!(await confirmAction(confirmation))) {
    trigger.focus();
    return;
  }
  const error = byId('action-error');
  try {
    const answer = await api('POST', routinePath(`/webhook/${action}`));
    if (!answer.ok) {
      setError(error, `${failureText}: ${describeFailure(answer)}`);
      trigger.focus();
      return;
    }
    setError(error, '');
    done(answer);
    void loadAudit();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

function rotate() {
  const scheme = schemeOf(loaded.webhook);
  if (rotateTakesSecret(scheme)) {
    openRotateForm(scheme);
    return undefined;
  }
  const confirmation = {
    title: 'Rotate the secret?',
    message:
      scheme === 'standard_webhooks'
        ? "A new signing secret is made and shown once. The current one stops working at once: the sender's deliveries get 404 until it signs with the new one."
        : 'A new secret is issued and shown once. The current secret stops working at once: senders still using it get 404 until they are given the new one.',
    confirmLabel: 'Rotate secret',
  };
  return confirmedAction('rotate', confirmation, 'Could not rotate the secret', (answer) => {
    loaded.webhook = stripSecret(answer.json);
    renderWebhook({ resetForm: false });
    showSecret(answer.json);
    announce('Secret rotated. The old secret no longer works. Copy the new one now: it is shown once.');
  });
}

function disable() {
  const confirmation = {
    title: 'Disable the webhook?',
    message:
      'Requests to the URL will get 404, like an unknown endpoint. Enabling again keeps the URL but issues a new secret, so senders will need it.',
    confirmLabel: 'Disable webhook',
  };
  return confirmedAction('disable', confirmation, 'Could not disable the webhook', (answer) => {
    hideSecret();
    byId('test-secret').value = '';
    loaded.webhook = answer.json;
    renderWebhook({ resetForm: true });
    byId('webhook-title').focus();
    announce('Webhook disabled. Requests now get 404.');
  });
}

export function wireWebhookPanel() {
  wireVerificationChoice();
  byId('enable-form').addEventListener('submit', (event) => void enable(event));
  byId('rotate').addEventListener('click', () => void rotate());
  wireRotateForm((answer) => {
    loaded.webhook = stripSecret(answer.json);
    renderWebhook({ resetForm: false });
    showSecret(answer.json);
    announce('Secret rotated. Only the new secret is accepted now.');
    void loadAudit();
  });
  wireRetentionPanel();
  byId('disable').addEventListener('click', () => void disable());
  byId('copy-url-details').addEventListener('click', () => void copyText(loaded.webhook?.url ?? '', 'URL'));
}
