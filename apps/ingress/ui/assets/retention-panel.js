// The Webhook section's payload retention: how long the payloads of its deliveries are kept (the
// webhook's own days, or the service's default), and, for an operator, a form to change it. A
// payload's expiry is fixed when its delivery arrives, so a change applies to deliveries received
// from then on; the page says so next to the control. Built here rather than in config.html, so the
// part of the section that only this module touches stays in this module.
import { announce, byId, h, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { may, roleNote } from './roles.js';
import { loadAudit } from './audit-trail.js';

/** The days a webhook may keep its payloads (the API's PAYLOAD_RETENTION_DAYS). */
const MIN_DAYS = 1;
const MAX_DAYS = 3650;
const DAY_SECONDS = 86_400;

/** "30 days", "1 day"; a default that is not whole days (PAYLOAD_RETENTION_SECONDS) in hours, minutes or seconds. */
export function durationText(seconds) {
  const units = [
    [DAY_SECONDS, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  const [size, unit] = units.find(([candidate]) => seconds % candidate === 0) ?? [1, 'second'];
  const count = seconds / size;
  return `${count.toLocaleString()} ${unit}${count === 1 ? '' : 's'}`;
}

/** The webhook's retention in words: its own days, or "default (30 days)". */
export function retentionText(webhook) {
  const effective = durationText(webhook.payload_retention_seconds_effective);
  return webhook.payload_retention_days === null ? `default (${effective})` : effective;
}

function build() {
  const input = h('input', { type: 'number', id: 'retention-days', 'aria-describedby': 'retention-help retention-error' });
  Object.assign(input, { min: String(MIN_DAYS), max: String(MAX_DAYS), step: '1', inputMode: 'numeric' });
  const form = h(
    'form',
    { id: 'retention-form', 'aria-labelledby': 'retention-title' },
    h('div', { class: 'field' }, h('label', { for: 'retention-days', text: `Keep payloads for (days, ${MIN_DAYS}–${MAX_DAYS})` }), input),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', id: 'retention-save', text: 'Save retention' }),
      h('button', { type: 'button', id: 'retention-default', text: 'Use the default' }),
    ),
  );
  form.noValidate = true;
  const section = h(
    'section',
    { id: 'retention-panel', 'aria-labelledby': 'retention-title' },
    h('h3', { id: 'retention-title', text: 'Payload retention' }),
    h('dl', { class: 'facts' }, h('dt', { text: 'Payloads kept for' }), h('dd', { id: 'retention-current' })),
    h(
      'p',
      { id: 'retention-help', class: 'help' },
      'A change applies to deliveries received from now on: payloads already kept keep the expiry they were given ' +
        '(erase them to remove them sooner).',
    ),
    form,
    h('p', { id: 'retention-role-note', class: 'role-note' }),
    h('p', { id: 'retention-error', class: 'error', role: 'alert' }),
  );
  for (const element of [section, form, section.querySelector('#retention-role-note'), section.querySelector('#retention-error')])
    show(element, false);
  return section;
}

/** The retention part of the Webhook section, from `loaded.webhook` (shown once the webhook is set up). */
export function renderRetention() {
  const webhook = loaded.webhook;
  show(byId('retention-panel'), webhook.state !== 'not_configured');
  byId('retention-current').textContent = retentionText(webhook);
  const operates = may('operator');
  show(byId('retention-form'), operates);
  byId('retention-days').value = webhook.payload_retention_days === null ? '' : String(webhook.payload_retention_days);
  byId('retention-default').disabled = webhook.payload_retention_days === null;
  const note = byId('retention-role-note');
  note.textContent = operates ? '' : roleNote('operator', 'Changing the payload retention');
  show(note, !operates);
}

/** The days typed, or a sentence saying what is wrong with them (the server checks again). */
function typedDays() {
  const text = byId('retention-days').value.trim();
  const days = Number(text);
  if (text === '' || !Number.isInteger(days) || days < MIN_DAYS || days > MAX_DAYS)
    return { problem: `Enter a whole number of days from ${MIN_DAYS} to ${MAX_DAYS}, or choose "Use the default".` };
  return { days };
}

/** Shows (or clears, with '') what is wrong, on the input too. */
function setProblem(message) {
  setError(byId('retention-error'), message);
  if (message) byId('retention-days').setAttribute('aria-invalid', 'true');
  else byId('retention-days').removeAttribute('aria-invalid');
}

/** PATCHes the retention (`days` null: the default) and shows the answer. */
async function change(days, trigger) {
  trigger.disabled = true;
  try {
    const answer = await api('PATCH', routinePath('/webhook'), { payload_retention_days: days });
    if (!answer.ok) {
      setProblem(`Could not change the payload retention: ${describeFailure(answer)}`);
      byId('retention-days').focus();
      return;
    }
    setProblem('');
    loaded.webhook = answer.json;
    renderRetention();
    announce(`Payloads of deliveries received from now on are kept for ${retentionText(loaded.webhook)}.`);
    void loadAudit();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setProblem('Could not reach the server.');
  } finally {
    trigger.disabled = days === null ? loaded.webhook.payload_retention_days === null : false;
  }
}

export function wireRetentionPanel() {
  byId('webhook-details').after(build());
  byId('retention-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const { days, problem } = typedDays();
    if (problem) {
      setProblem(problem);
      byId('retention-days').focus();
      return;
    }
    void change(days, byId('retention-save'));
  });
  byId('retention-default').addEventListener('click', () => void change(null, byId('retention-default')));
}
