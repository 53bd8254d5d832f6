// The Webhook section's hold: "Hold runs" (with an optional time to release by itself), behind a
// confirmation; releasing (or discarding) is release-actions.js. While held, senders still get 202
// and every delivery is kept; no run is made until the release, which judges each held delivery as
// things then stand and makes its run in the order it arrived. The held state (since, by whom, when it releases by itself, how many wait) is
// checked again every few seconds while the page is open, and so is a release's progress ("running
// N held deliveries"). Holding and releasing need the operator role: below it the controls are
// hidden and the section says why; the state stays visible.
import { announce, byId, clear, setError, show, timeElement } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { confirmFor } from './confirm-dialog.js';
import { may, roleNote } from './roles.js';
import { loadAudit } from './audit-trail.js';
import { loadDeliveries, loadParked } from './activity-listings.js';

/** How often the held state and a release's progress are checked again. */
export const HOLD_REFRESH_MS = 3000;
/** The most held deliveries the server counts (HELD_DELIVERIES_CAP): a larger backlog shows as this many. */
const HELD_COUNT_CAP = 1_000_000;

/** Told when a view changes more than the hold (state, block): the whole section renders again. */
let onWebhookChanged = () => undefined;
let timer = null;
let waitingForSight = false;

/** "3 deliveries", "1 held delivery", "1,000,000 or more deliveries". */
export function deliveriesText(count, adjective = '') {
  const more = count >= HELD_COUNT_CAP ? ' or more' : '';
  const noun = count === 1 && more === '' ? 'delivery' : 'deliveries';
  return `${count.toLocaleString()}${more} ${adjective === '' ? '' : `${adjective} `}${noun}`;
}

/** Whether the page should keep checking: a hold, or a release whose deliveries are still being run. */
function watching(webhook) {
  return webhook !== null && (webhook.held || (webhook.held_deliveries ?? 0) > 0);
}

// ------------------------------------------------------------------ render

/** The hold's part of the Webhook section, from `loaded.webhook`. */
export function renderHold() {
  const webhook = loaded.webhook;
  const configured = webhook.state !== 'not_configured';
  show(byId('hold-panel'), configured);
  show(byId('webhook-held-badge'), webhook.held);

  show(byId('held-callout'), webhook.held);
  if (webhook.held) {
    replaceWith(byId('held-since'), webhook.held_since ? timeElement(webhook.held_since) : 'unknown');
    byId('held-by').textContent = webhook.held_by ?? 'unknown';
    replaceWith(byId('held-release-at'), webhook.release_at ? timeElement(webhook.release_at) : 'No: only when someone releases it');
    byId('held-count').textContent =
      typeof webhook.held_deliveries !== 'number'
        ? 'Not known right now (the count is unavailable)'
        : `${deliveriesText(webhook.held_deliveries)} waiting`;
  }

  const draining = !webhook.held && (webhook.held_deliveries ?? 0) > 0;
  show(byId('release-progress'), draining);
  byId('release-progress').textContent = !draining
    ? ''
    : webhook.last_release === 'discard'
      ? `Discarded: parking ${deliveriesText(webhook.held_deliveries, 'held')}, no run…`
      : `Released: running ${deliveriesText(webhook.held_deliveries, 'held')}${webhook.held_deliveries === 1 ? '' : ', in the order they arrived'}…`;

  // Hold an enabled webhook that is not held; release a held one (a hold outlives a disable).
  const operates = may('operator');
  const canHold = webhook.state === 'enabled' && !webhook.held;
  show(byId('hold-form'), canHold && operates);
  show(byId('release-actions'), webhook.held && operates);
  const what = webhook.held ? 'Releasing the held runs' : canHold ? 'Holding runs' : null;
  const note = byId('hold-role-note');
  note.textContent = operates || what === null ? '' : roleNote('operator', what);
  show(note, !operates && what !== null);
  byId('hold-release-at').min = localInputValue(new Date());

  schedule();
}

function replaceWith(element, content) {
  clear(element);
  element.append(content);
}

// ------------------------------------------------------------------ periodic check

/** Keeps one check pending while the webhook is held or a release is running; none otherwise. */
function schedule() {
  if (timer !== null || waitingForSight || !watching(loaded.webhook)) return;
  timer = window.setTimeout(() => {
    timer = null;
    void refreshHold();
  }, HOLD_REFRESH_MS);
}

/** GETs the webhook again (as a listing's Refresh does) and renders what changed. Hidden tabs wait. */
export async function refreshHold() {
  if (document.hidden) {
    // Checked again once the tab is seen (one pending check, as the timer keeps one).
    if (!waitingForSight) {
      waitingForSight = true;
      document.addEventListener(
        'visibilitychange',
        () => {
          waitingForSight = false;
          void refreshHold();
        },
        { once: true },
      );
    }
    return;
  }
  const error = byId('hold-error');
  // An answer that arrives after the view changed here (a hold, release, disable… answered
  // meanwhile) is older than what the page shows: it is dropped, and the next check asks again.
  const asked = loaded.webhook;
  try {
    const answer = await api('GET', routinePath('/webhook'));
    if (loaded.webhook !== asked) {
      schedule();
      return;
    }
    if (!answer.ok) {
      setError(error, `Could not check the hold: ${describeFailure(answer)}`);
      schedule();
      return;
    }
    if (error.textContent.startsWith('Could not check the hold')) setError(error, '');
    applyView(answer.json, { announceDone: true });
  } catch (failure) {
    if (failure instanceof SignedOutError) return;
    setError(error, 'Could not reach the server to check the hold.');
    schedule();
  }
}

/** Takes a fresh webhook view: the hold's part renders again, or the whole section when more changed. */
export function applyView(view, { announceDone }) {
  const before = loaded.webhook;
  loaded.webhook = view;
  const sectionChanged = before.state !== view.state || before.blocked !== view.blocked || before.webhook_id !== view.webhook_id;
  if (sectionChanged) onWebhookChanged();
  else renderHold();
  const releasedByItself = before.held && !view.held;
  if (before.held_deliveries !== view.held_deliveries || releasedByItself) {
    // A release parks what the routine now refuses (a discard parks them all): both listings move.
    void loadDeliveries();
    void loadParked();
  }
  if (!announceDone) return;
  const waiting = view.held_deliveries ?? 0;
  if (releasedByItself) {
    announce(
      waiting > 0
        ? `The hold was released: running ${deliveriesText(waiting, 'held')} in the order they arrived.`
        : 'The hold was released: deliveries run at once again.',
    );
    void loadAudit();
  } else if (!view.held && (before.held_deliveries ?? 0) > 0 && waiting === 0) {
    announce(view.last_release === 'discard' ? 'Every discarded delivery is parked now.' : 'Every held delivery has its run now.');
  }
}

// ------------------------------------------------------------------ hold and release

/** A datetime-local value (local time, to the minute) for `date`. */
function localInputValue(date) {
  const pad = (value, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * The datetime-local value as ISO 8601 with the browser's offset for that moment
 * ("2026-11-27T18:00:00+01:00"): what `release_at` takes. Null when empty; undefined when not a time.
 */
export function releaseAtOf(value) {
  if (value === '') return null;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) || Number.isNaN(date.getTime())) return undefined;
  const pad = (number, width = 2) => String(Math.abs(number)).padStart(width, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  );
}

/** A 409 (disabled, or no webhook, meanwhile): the page shows the webhook as it is now, beside the refusal. */
export async function refusedBecauseStale(answer) {
  if (answer.status !== 409) return;
  try {
    const fresh = await api('GET', routinePath('/webhook'));
    if (fresh.ok) applyView(fresh.json, { announceDone: false });
  } catch {
    // The refusal is shown already; the next check or a reload shows the rest.
  }
}

/** Focus on `element`, or on the section's title when the view no longer shows it. */
export function focusFirstShown(element) {
  if (element.offsetParent !== null) element.focus();
  else byId('webhook-title').focus();
}

/** The refusal under the hold form; `timeRefused`: the time is what is wrong (the field is marked invalid). */
function setHoldProblem(message, { timeRefused = false } = {}) {
  setError(byId('hold-error'), message);
  const input = byId('hold-release-at');
  if (message && timeRefused) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

async function hold(event) {
  event.preventDefault();
  const input = byId('hold-release-at');
  const button = byId('hold');
  const releaseAt = releaseAtOf(input.value);
  if (releaseAt === undefined) {
    setHoldProblem('Enter a date and time to release at, or leave it empty.', { timeRefused: true });
    input.focus();
    return;
  }
  setHoldProblem('');
  const until =
    releaseAt === null
      ? 'until someone releases it'
      : `until ${new Date(releaseAt).toLocaleString()}, when it releases by itself (or until someone releases it first)`;
  const confirmed = await confirmFor(button, {
    title: 'Hold the runs?',
    message:
      `Senders keep getting 202 and every delivery is kept: nothing is lost. No run is created ${until}. ` +
      'The release then creates each held delivery’s run in the order the deliveries arrived. ' +
      '(To refuse deliveries instead, disable the webhook: senders then get 404.)',
    confirmLabel: 'Hold runs',
  });
  if (!confirmed) return;
  try {
    const answer = await api('POST', routinePath('/webhook/hold'), releaseAt === null ? {} : { release_at: releaseAt });
    if (!answer.ok) {
      const timeRefused = answer.status === 400 && releaseAt !== null;
      setHoldProblem(`Could not hold the runs: ${describeFailure(answer)}`, { timeRefused });
      await refusedBecauseStale(answer);
      button.disabled = false;
      focusFirstShown(timeRefused ? input : button);
      return;
    }
    setHoldProblem('');
    input.value = '';
    applyView(answer.json, { announceDone: false });
    byId('held-title').focus();
    announce('Runs held. Deliveries are still accepted and kept; none runs until the hold is released.');
    void loadAudit();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setHoldProblem('Could not reach the server. Nothing was changed; try again.');
  } finally {
    button.disabled = false;
  }
}

/** `changed()` renders the whole Webhook section again (a check found more than the hold changed). */
export function wireHoldPanel({ changed }) {
  onWebhookChanged = changed;
  byId('hold-form').addEventListener('submit', (event) => void hold(event));
  window.addEventListener('pagehide', () => {
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
  });
}
