// The rules section's try-it panel: the rules as typed (not saved) tried on a sample through
// POST …/webhook/rules/try, which saves and records nothing. The sample is pasted, or taken from one
// of the last deliveries (its run's payload, exactly as stored), so a rule is checked against what
// the sender really sends. Each rule's verdict is said as what would happen to such a delivery.
import { byId, clear, h, setError, show } from './dom.js';
import { payloadStateLabel } from './labels.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { routinePath } from './config-state.js';
import { payloadText } from './run-record.js';

/** How many of the last deliveries the picker offers. */
const PICKER_LIMIT = 20;
const CONTENT_TYPES = ['application/json', 'text/plain'];

/** The rules as typed (rules-panel.js's editedRules): `{filter, payload_schema}` or `{problem}`. */
let typedRules = () => ({ problem: 'not wired' });
/** The deliveries the picker lists, by id. */
const listed = new Map();
let pickerLoaded = false;

/** The panel's elements, put in the rules section by rules-panel.js. */
export function rulesTryPanel() {
  const sample = h('textarea', { id: 'rules-sample', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'rules-sample-help' });
  sample.rows = 6;
  const contentType = h('select', { id: 'rules-sample-type' });
  contentType.append(...CONTENT_TYPES.map((type) => new Option(type, type)));
  const picker = h('select', { id: 'rules-sample-delivery', 'aria-describedby': 'rules-sample-delivery-note' });
  return h(
    'section',
    { id: 'rules-try', 'aria-labelledby': 'rules-try-title' },
    h('h3', { id: 'rules-try-title', text: 'Try the rules' }),
    h('p', { class: 'help', text: 'Tries the rules as typed above, without saving them, on a sample: nothing is stored or run.' }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'rules-sample-delivery', text: 'Sample from one of the last deliveries' }),
      h('div', { class: 'copy-row' }, picker, h('button', { type: 'button', id: 'rules-sample-refresh', text: 'Refresh list' })),
      h('p', { id: 'rules-sample-delivery-note', class: 'result', role: 'status', 'aria-live': 'polite' }),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'rules-sample', text: 'Sample body' }),
      sample,
      h('p', {
        id: 'rules-sample-help',
        class: 'help',
        text: 'Paste a payload (JSON or text), or pick a delivery above. Headers can be given to a try through the API (headers); here headers is empty.',
      }),
    ),
    h('div', { class: 'field' }, h('label', { for: 'rules-sample-type', text: 'Content type' }), contentType),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'rules-sample-event', text: 'Event type (optional)' }),
      h('input', { type: 'text', id: 'rules-sample-event', spellcheck: 'false', autocomplete: 'off', maxlength: '256' }),
    ),
    h('button', { type: 'button', id: 'rules-try-run', text: 'Try' }),
    h('p', { id: 'rules-try-error', class: 'error', role: 'alert' }),
    h(
      'div',
      { id: 'rules-try-result', role: 'status', 'aria-live': 'polite' },
      h('p', { id: 'rules-try-filter', class: 'result' }),
      h('p', { id: 'rules-try-schema', class: 'result' }),
      h('ul', { id: 'rules-try-schema-errors' }),
    ),
  );
}

/** Shows the panel to those who may try (operators); the picker is filled the first time. */
export function renderRulesTry(visible) {
  show(byId('rules-try'), visible);
  if (visible && !pickerLoaded) {
    pickerLoaded = true;
    void loadPicker();
  }
}

/** "12/05/2026, 10:31:02 — dlv_… (application/json)", and the payload's state when it is gone. */
function optionText(delivery) {
  const when = new Date(delivery.received_at).toLocaleString();
  const gone = delivery.payload_state === 'kept' ? '' : `, payload ${payloadStateLabel(delivery.payload_state)}`;
  return `${when} — ${delivery.delivery_id} (${delivery.content_type}${gone})`;
}

/** Lists the last deliveries in the picker. */
async function loadPicker() {
  const picker = byId('rules-sample-delivery');
  const note = byId('rules-sample-delivery-note');
  try {
    const answer = await api('GET', routinePath(`/webhook/deliveries?limit=${PICKER_LIMIT}`));
    if (!answer.ok) {
      note.textContent = `Could not list the deliveries: ${describeFailure(answer)}`;
      return;
    }
    const deliveries = answer.json.deliveries;
    listed.clear();
    for (const delivery of deliveries) listed.set(delivery.delivery_id, delivery);
    const first = new Option(deliveries.length === 0 ? 'No deliveries yet' : 'Choose a delivery…', '');
    picker.replaceChildren(first, ...deliveries.map((delivery) => new Option(optionText(delivery), delivery.delivery_id)));
    picker.disabled = deliveries.length === 0;
    note.textContent = '';
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) note.textContent = 'Could not reach the server.';
  }
}

/** Fills the sample with the picked delivery's payload (its run's), or says why there is none. */
async function usePicked() {
  const note = byId('rules-sample-delivery-note');
  const delivery = listed.get(byId('rules-sample-delivery').value);
  if (!delivery) return;
  const unusable = (why) => {
    note.textContent = `Delivery ${delivery.delivery_id}: ${why} Paste a sample instead, or pick another delivery.`;
  };
  if (delivery.payload_state !== 'kept') return unusable(`its payload was ${payloadStateLabel(delivery.payload_state)}: nothing to try.`);
  if (!delivery.run_id) return unusable('it has no run, so its payload is not kept.');
  try {
    const answer = await api('GET', `/admin/runs/${encodeURIComponent(delivery.run_id)}`);
    if (answer.status === 404) return unusable('its run is not made yet; try again in a moment.');
    if (!answer.ok) return unusable(`could not load its run: ${describeFailure(answer)}.`);
    const run = answer.json;
    if ((run.payload_state ?? 'kept') !== 'kept' || run.payload === null)
      return unusable(`its payload was ${payloadStateLabel(run.payload_state)}: nothing to try.`);
    byId('rules-sample').value = payloadText(answer.text, run);
    byId('rules-sample-type').value = run.payload_format === 'text' ? 'text/plain' : 'application/json';
    note.textContent = `The sample is the payload of delivery ${delivery.delivery_id}.`;
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) note.textContent = 'Could not reach the server.';
  }
  return undefined;
}

/** The filter's verdict as what would happen to such a delivery. */
export function filterVerdict(filter) {
  if (filter === null) return 'Filter: none — every delivery would run.';
  if (filter.result === 'matched') return 'Filter: matched — would run.';
  if (filter.result === 'not_matched') return 'Filter: not matched — would be filtered (no run).';
  if (filter.result === 'error') return `Filter: would run (filter error: ${filter.error}). An error lets the delivery through.`;
  return `Filter: invalid — ${filter.error}`;
}

/** The schema's verdict; a mismatch's errors are listed apart. */
export function schemaVerdict(schema) {
  if (schema === null) return 'Payload schema: none — payloads are not checked.';
  if (schema.result === 'conforms') return 'Payload schema: conforms.';
  if (schema.result === 'skipped') return 'Payload schema: not checked (the sample is not JSON).';
  if (schema.result === 'mismatch') return 'Payload schema: mismatch — would be refused (400 payload_schema_mismatch, no run):';
  return `Payload schema: invalid — ${schema.error}`;
}

function showVerdicts(trial) {
  byId('rules-try-filter').textContent = filterVerdict(trial.filter);
  byId('rules-try-schema').textContent = schemaVerdict(trial.payload_schema);
  const list = byId('rules-try-schema-errors');
  clear(list);
  const errors = trial.payload_schema?.result === 'mismatch' ? trial.payload_schema.errors : [];
  for (const error of errors)
    list.append(
      h('li', { text: `${error.instance_path === '' ? '(the payload)' : error.instance_path}: ${error.message} (${error.keyword})` }),
    );
  show(list, errors.length > 0);
}

function clearVerdicts() {
  byId('rules-try-filter').textContent = '';
  byId('rules-try-schema').textContent = '';
  clear(byId('rules-try-schema-errors'));
  show(byId('rules-try-schema-errors'), false);
}

/** Tries the typed rules on the sample. */
async function tryRules(trigger) {
  const error = byId('rules-try-error');
  setError(error, '');
  clearVerdicts();
  const rules = typedRules();
  if (rules.problem) {
    setError(error, `Not tried: ${rules.problem}`);
    return;
  }
  const eventType = byId('rules-sample-event').value.trim();
  const body = {
    sample: byId('rules-sample').value,
    content_type: byId('rules-sample-type').value,
    ...(eventType === '' ? {} : { event_type: eventType }),
    filter: rules.filter,
    payload_schema: rules.payload_schema,
  };
  trigger.disabled = true;
  try {
    const answer = await api('POST', routinePath('/webhook/rules/try'), body);
    if (!answer.ok) setError(error, `Could not try the rules: ${describeFailure(answer)}`);
    else showVerdicts(answer.json);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  } finally {
    trigger.disabled = false;
  }
}

/** `editedRules()`: the rules as typed, from rules-panel.js. */
export function wireRulesTry(editedRules) {
  typedRules = editedRules;
  show(byId('rules-try'), false);
  show(byId('rules-try-error'), false);
  show(byId('rules-try-schema-errors'), false);
  byId('rules-sample-delivery').append(new Option('Choose a delivery…', ''));
  byId('rules-sample-delivery').addEventListener('change', () => void usePicked());
  byId('rules-sample-refresh').addEventListener('click', () => void loadPicker());
  // Edited by hand, the sample is no longer the picked delivery's payload: the picker says so.
  byId('rules-sample').addEventListener('input', () => {
    byId('rules-sample-delivery').value = '';
    byId('rules-sample-delivery-note').textContent = '';
  });
  byId('rules-try-run').addEventListener('click', (event) => void tryRules(event.currentTarget));
}
