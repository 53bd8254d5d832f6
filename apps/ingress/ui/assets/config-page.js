// A routine's Config page, Webhook section: state, setup (default account, override, Enable),
// the secret shown once (enable, rotate), Rotate, Disable, test delivery, recent deliveries and
// their runs, rejected attempts, parked deliveries. Listings page with "Show older" (the API's
// cursors). Every value from the server reaches the page as text only.
import { announce, byId, clear, copyText, h, setError, show, timeElement } from './dom.js';
import { STATE_LABELS, attemptReasonLabel, badgeOf } from './labels.js';
import { SignedOutError, api, describeFailure, withSession } from './session.js';

const DELIVERY_LIMIT = 20;
const DEFAULT_TEST_BODY = '{"data":{"message":"Test delivery from the Config page"}}';

const routineId = decodeURIComponent((/^\/ui\/routines\/([^/]+)\/config$/.exec(window.location.pathname) ?? [])[1] ?? '');

/** Loaded from the admin API. */
let routine = null;
let accounts = [];
let webhook = null;

/**
 * The secret of the last enable or rotate: in this variable and the fields of the secret panel,
 * nowhere else (no storage, no URL). Hiding the panel or leaving the page drops it for good.
 */
let shownSecret = null;

// ------------------------------------------------------------------ loading

async function loadAll() {
  const pageError = byId('page-error');
  try {
    const [routineAnswer, accountsAnswer, webhookAnswer] = await Promise.all([
      api('GET', `/admin/routines/${encodeURIComponent(routineId)}`),
      api('GET', '/admin/accounts'),
      api('GET', `/admin/routines/${encodeURIComponent(routineId)}/webhook`),
    ]);
    if (routineAnswer.status === 404) {
      show(byId('main'), false);
      setError(pageError, 'There is no such routine.');
      return;
    }
    for (const answer of [routineAnswer, accountsAnswer, webhookAnswer]) {
      if (!answer.ok) {
        setError(pageError, `Could not load the Config page: ${describeFailure(answer)}`);
        return;
      }
    }
    setError(pageError, '');
    routine = routineAnswer.json;
    accounts = accountsAnswer.json.accounts;
    webhook = webhookAnswer.json;
    renderRoutine();
    renderWebhook({ resetForm: true });
    await Promise.all([loadDeliveries(), loadAttempts(), loadParked()]);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(pageError, 'Could not reach the server.');
  }
}

// ------------------------------------------------------------------ routine

function accountEmail(accountId) {
  return accounts.find((account) => account.id === accountId)?.email ?? accountId;
}

function renderRoutine() {
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
  return accounts.filter((account) => account.active && routine.account_scope.includes(account.id));
}

function renderWebhook({ resetForm }) {
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
  byId('webhook-default').textContent = webhook.default_account ?? '';
  byId('webhook-override').textContent = webhook.account_override_allowed ? 'Allowed' : 'Not allowed';

  const enabled = webhook.state === 'enabled';
  show(byId('enable-form'), !enabled);
  show(byId('webhook-actions'), enabled);
  byId('enable-title').textContent = configured ? 'Enable again' : 'Set up the webhook';
  byId('enable-hint').textContent = configured
    ? 'Enabling again keeps the URL and issues a new secret (shown once).'
    : 'Choose a default account, optionally allow requests to choose the account, then enable. The secret is shown once.';
  if (resetForm && !enabled) renderSetupForm();

  show(byId('test-form'), enabled);
  show(byId('test-unavailable'), !enabled);
  byId('test-secret-help').textContent =
    shownSecret === null ? 'Paste the secret here: the page has no secret on screen.' : 'Leave empty to use the secret shown above.';
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
    eligible.find((account) => account.email === webhook.default_account) ?? eligible.find((account) => account.primary) ?? eligible[0];
  if (preferred) select.value = preferred.email;
  select.disabled = eligible.length === 0;
  byId('enable').disabled = eligible.length === 0;
  show(byId('no-accounts'), eligible.length === 0);
  byId('override').checked = webhook.account_override_allowed;
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
  button.disabled = true;
  try {
    const answer = await api('POST', `/admin/routines/${encodeURIComponent(routineId)}/webhook/enable`, {
      default_account: defaultAccount,
      account_override_allowed: byId('override').checked,
    });
    if (!answer.ok) {
      setError(error, `Could not enable the webhook: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    webhook = stripSecret(answer.json);
    renderWebhook({ resetForm: false });
    showSecret(answer.json);
    announce('Webhook enabled. Copy the URL and the secret now: the secret is shown once.');
    void loadAttempts();
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

const dialog = () => byId('confirm-dialog');

/** A modal confirmation; resolves true on confirm. Cancel is focused first; Escape cancels. */
function confirmAction({ title, message, confirmLabel }) {
  const element = dialog();
  byId('confirm-title').textContent = title;
  byId('confirm-message').textContent = message;
  byId('confirm-ok').textContent = confirmLabel;
  element.returnValue = '';
  return new Promise((resolve) => {
    element.addEventListener('close', () => resolve(element.returnValue === 'confirm'), { once: true });
    element.showModal();
    byId('confirm-cancel').focus();
  });
}

async function rotate() {
  const trigger = byId('rotate');
  const confirmed = await confirmAction({
    title: 'Rotate the secret?',
    message:
      'A new secret is issued and shown once. The current secret stops working at once: senders still using it get 404 until they are given the new one.',
    confirmLabel: 'Rotate secret',
  });
  if (!confirmed) {
    trigger.focus();
    return;
  }
  const error = byId('action-error');
  try {
    const answer = await api('POST', `/admin/routines/${encodeURIComponent(routineId)}/webhook/rotate`);
    if (!answer.ok) {
      setError(error, `Could not rotate the secret: ${describeFailure(answer)}`);
      trigger.focus();
      return;
    }
    setError(error, '');
    webhook = stripSecret(answer.json);
    renderWebhook({ resetForm: false });
    showSecret(answer.json);
    announce('Secret rotated. The old secret no longer works. Copy the new one now: it is shown once.');
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

async function disable() {
  const trigger = byId('disable');
  const confirmed = await confirmAction({
    title: 'Disable the webhook?',
    message:
      'Requests to the URL will get 404, like an unknown endpoint. Enabling again keeps the URL but issues a new secret, so senders will need it.',
    confirmLabel: 'Disable webhook',
  });
  if (!confirmed) {
    trigger.focus();
    return;
  }
  const error = byId('action-error');
  try {
    const answer = await api('POST', `/admin/routines/${encodeURIComponent(routineId)}/webhook/disable`);
    if (!answer.ok) {
      setError(error, `Could not disable the webhook: ${describeFailure(answer)}`);
      trigger.focus();
      return;
    }
    setError(error, '');
    hideSecret();
    byId('test-secret').value = '';
    webhook = answer.json;
    renderWebhook({ resetForm: true });
    byId('webhook-title').focus();
    announce('Webhook disabled. Requests now get 404.');
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

// ------------------------------------------------------------------ the secret, shown once

/** POSIX shell single-quoting, so the example is safe to paste whatever the values hold. */
function shellQuote(value) {
  return `'${String(value).replaceAll("'", "'\\''")}'`;
}

function curlExample(url, secret) {
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

function showSecret(answer) {
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
function hideSecret() {
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

// ------------------------------------------------------------------ test delivery

async function sendTest(event) {
  event.preventDefault();
  const result = byId('test-result');
  const secretField = byId('test-secret');
  const secret = secretField.value.trim() !== '' ? secretField.value.trim() : shownSecret;
  if (!secret) {
    result.textContent = 'Paste the webhook secret first: the page no longer has it.';
    secretField.focus();
    return;
  }
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const key = byId('test-idempotency').value.trim();
  if (key !== '') headers['x-service-idempotency-key'] = key;
  const button = byId('send-test');
  button.disabled = true;
  result.textContent = 'Sending…';
  try {
    // Same origin, the real endpoint: the page is served by the ingress that serves the webhook.
    const response = await fetch(`/workflow-webhooks/${encodeURIComponent(webhook.webhook_id)}`, {
      method: 'POST',
      headers,
      body: byId('test-body').value,
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
      referrerPolicy: 'no-referrer',
    });
    const text = await response.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    result.textContent = describeTestAnswer(response, body);
    if (response.status === 202 && body) await waitForDelivery(body.delivery_id);
    void loadAttempts();
  } catch {
    result.textContent = 'The request could not be sent.';
  } finally {
    button.disabled = false;
  }
}

function describeTestAnswer(response, body) {
  if (response.status === 202 && body) {
    const replayed = response.headers.get('idempotent-replayed') === 'true' ? ' (replayed: the first answer to this idempotency key)' : '';
    return `202 Accepted: delivery ${body.delivery_id}, run ${body.run_id}${replayed}.`;
  }
  if (response.status === 404) {
    return '404 Not Found: the secret is wrong or the webhook is disabled (callers cannot tell which; see Rejected attempts).';
  }
  const detail = body && typeof body === 'object' ? [body.code, body.detail].filter((part) => typeof part === 'string').join(': ') : '';
  return `${response.status} ${response.statusText}${detail === '' ? '' : `: ${detail}`}`;
}

/** The listing follows the store a moment behind the 202: poll briefly for the new delivery. */
async function waitForDelivery(deliveryId) {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const deliveries = await loadDeliveries();
    if (!deliveries || deliveries.some((delivery) => delivery.delivery_id === deliveryId)) return;
    await new Promise((resolve) => window.setTimeout(resolve, 150));
  }
}

// ------------------------------------------------------------------ deliveries and runs

/** Where "Show older" continues each listing: the API's next_cursor (null: nothing older). */
const cursors = { deliveries: null, attempts: null, parked: null };

/** `?limit=&cursor=` of a listing: the first page, or the one after `cursor`. */
function page(cursor) {
  return `limit=${DELIVERY_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

/** The newest deliveries (replacing the table), or with `older` the page after those shown. */
async function loadDeliveries({ older = false } = {}) {
  const error = byId('deliveries-error');
  try {
    const base = `/admin/routines/${encodeURIComponent(routineId)}/webhook`;
    const query = page(older ? cursors.deliveries : null);
    const [deliveries, replays] = await Promise.all([api('GET', `${base}/deliveries?${query}`), api('GET', `${base}/replays?${query}`)]);
    if (!deliveries.ok) {
      setError(error, `Could not load the deliveries: ${describeFailure(deliveries)}`);
      return undefined;
    }
    setError(error, '');
    const replayCounts = new Map(replays.ok ? replays.json.replays.map((entry) => [entry.delivery_id, entry.replays]) : []);
    cursors.deliveries = deliveries.json.next_cursor ?? null;
    renderDeliveries(deliveries.json.deliveries, replayCounts, { append: older });
    show(byId('more-deliveries'), cursors.deliveries !== null);
    return deliveries.json.deliveries;
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
    return undefined;
  }
}

function renderDeliveries(deliveries, replayCounts, { append }) {
  const body = byId('deliveries-body');
  if (!append) clear(body);
  const empty = body.children.length === 0 && deliveries.length === 0;
  show(byId('deliveries-empty'), empty);
  show(byId('deliveries-table'), !empty);
  for (const delivery of deliveries) {
    const replays = replayCounts.get(delivery.delivery_id) ?? 0;
    const viewRun = h('button', {
      type: 'button',
      class: 'link-button',
      text: delivery.run_id,
      'aria-label': `View run ${delivery.run_id}`,
      'data-id': delivery.run_id,
      onclick: (event) => void openRun(delivery.run_id, event.currentTarget),
    });
    body.append(
      h(
        'tr',
        { 'data-id': delivery.delivery_id },
        h('td', {}, timeElement(delivery.received_at)),
        h('td', {}, viewRun),
        h('td', { text: delivery.trigger_account.email }),
        h('td', { text: replays === 0 ? 'No' : `Yes (${replays} ${replays === 1 ? 'repeat' : 'repeats'})` }),
        h('td', { text: delivery.content_type }),
        h('td', { text: delivery.idempotency_key ?? '—' }),
      ),
    );
  }
}

/**
 * The payload exactly as stored: `GET /admin/runs/{id}` splices it in verbatim as the last
 * member, after `"payload_format":"json"` — reading it from the text keeps every digit.
 */
function payloadText(text, run) {
  if (run.payload_format === 'text') return String(run.payload);
  const marker = '"payload_format":"json","payload":';
  const at = text.indexOf(marker);
  if (at >= 0 && text.endsWith('}')) return text.slice(at + marker.length, -1);
  return JSON.stringify(run.payload);
}

let runTrigger = null;

async function openRun(runId, trigger) {
  runTrigger = trigger;
  const section = byId('run-record');
  try {
    const answer = await api('GET', `/admin/runs/${encodeURIComponent(runId)}`);
    const found = answer.status === 200;
    byId('run-title').textContent = `Run ${runId}`;
    show(byId('run-missing'), !found);
    show(byId('run-facts'), found);
    show(byId('run-texts'), found);
    if (answer.status !== 200 && answer.status !== 404) {
      byId('run-missing').textContent = `Could not load the run: ${describeFailure(answer)}`;
      show(byId('run-missing'), true);
    }
    if (found) {
      const run = answer.json;
      byId('run-id').textContent = run.run_id;
      byId('run-status').textContent = run.status;
      clear(byId('run-created'));
      byId('run-created').append(timeElement(run.created_at));
      byId('run-delivery').textContent = run.delivery_id;
      byId('run-account').textContent = run.trigger_account.email;
      byId('run-routine').textContent = `${run.routine.name} (${run.routine.mode})`;
      byId('run-payload-format').textContent = run.payload_format;
      byId('run-payload').textContent = payloadText(answer.text, run);
      byId('run-initial-message').textContent = run.initial_message;
    }
    show(section, true);
    byId('run-title').focus();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(byId('deliveries-error'), 'Could not reach the server.');
  }
}

function closeRun() {
  show(byId('run-record'), false);
  if (runTrigger && runTrigger.isConnected) runTrigger.focus();
  else byId('deliveries-title').focus();
}

// ------------------------------------------------------------------ rejected attempts

async function loadAttempts({ older = false } = {}) {
  const error = byId('attempts-error');
  try {
    const answer = await api('GET', `/admin/routines/${encodeURIComponent(routineId)}/webhook/attempts?${page(older ? cursors.attempts : null)}`);
    if (!answer.ok) {
      setError(error, `Could not load the rejected attempts: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    const attempts = answer.json.attempts;
    cursors.attempts = answer.json.next_cursor ?? null;
    show(byId('more-attempts'), cursors.attempts !== null);
    const body = byId('attempts-body');
    if (!older) clear(body);
    const empty = body.children.length === 0 && attempts.length === 0;
    show(byId('attempts-empty'), empty);
    show(byId('attempts-table'), !empty);
    for (const attempt of attempts) {
      body.append(
        h(
          'tr',
          {},
          h('td', {}, timeElement(attempt.at)),
          h('td', { title: attempt.reason, text: attemptReasonLabel(attempt.reason) }),
          h('td', { text: attempt.source_address }),
        ),
      );
    }
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

// ------------------------------------------------------------------ parked deliveries

async function loadParked({ older = false } = {}) {
  const error = byId('parked-error');
  try {
    const answer = await api('GET', `/admin/routines/${encodeURIComponent(routineId)}/webhook/parked?${page(older ? cursors.parked : null)}`);
    if (!answer.ok) {
      setError(error, `Could not load the parked deliveries: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    const parked = answer.json.parked;
    cursors.parked = answer.json.next_cursor ?? null;
    show(byId('more-parked'), cursors.parked !== null);
    const body = byId('parked-body');
    if (!older) clear(body);
    const empty = body.children.length === 0 && parked.length === 0;
    show(byId('parked-empty'), empty);
    show(byId('parked-table'), !empty);
    for (const entry of parked) {
      body.append(
        h(
          'tr',
          { 'data-id': entry.delivery_id ?? entry.source_event_id },
          h('td', {}, timeElement(entry.parked_at)),
          h('td', { text: entry.delivery_id ?? entry.source_stream }),
          h('td', { text: entry.error }),
        ),
      );
    }
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

// ------------------------------------------------------------------ wiring

function wire() {
  byId('enable-form').addEventListener('submit', (event) => void enable(event));
  byId('rotate').addEventListener('click', () => void rotate());
  byId('disable').addEventListener('click', () => void disable());
  byId('confirm-cancel').addEventListener('click', () => dialog().close('cancel'));
  byId('confirm-ok').addEventListener('click', () => dialog().close('confirm'));
  byId('copy-url-details').addEventListener('click', () => void copyText(webhook?.url ?? '', 'URL'));
  byId('copy-url').addEventListener('click', () => void copyText(byId('secret-url').value, 'URL', byId('secret-url')));
  byId('copy-secret').addEventListener('click', () => void copyText(shownSecret ?? '', 'Secret', byId('secret-value')));
  byId('copy-curl').addEventListener('click', () => void copyText(byId('curl-example').textContent, 'Curl example'));
  byId('dismiss-secret').addEventListener('click', dismissSecret);
  byId('test-form').addEventListener('submit', (event) => void sendTest(event));
  byId('refresh-deliveries').addEventListener('click', () => void loadDeliveries());
  byId('refresh-attempts').addEventListener('click', () => void loadAttempts());
  byId('more-deliveries').addEventListener('click', () => void loadDeliveries({ older: true }));
  byId('more-attempts').addEventListener('click', () => void loadAttempts({ older: true }));
  byId('refresh-parked').addEventListener('click', () => void loadParked());
  byId('more-parked').addEventListener('click', () => void loadParked({ older: true }));
  byId('close-run').addEventListener('click', closeRun);
  byId('test-body').value = DEFAULT_TEST_BODY;
  // Leaving the page (or a back/forward cache entry) keeps no secret.
  window.addEventListener('pagehide', hideSecret);
}

wire();
withSession(() => {
  void loadAll();
});
