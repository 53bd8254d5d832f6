// Re-dispatching parked deliveries from the Config page (operators): a tick a listed row (or
// "Select all listed"), one "Re-dispatch selected…" button behind a confirmation, then each
// delivery's outcome in its row — a run created (opening its record), already created, parked
// again with the reason, held until its webhook's release, not found, not re-dispatchable — and a
// summary. Each delivery is judged as when it was accepted and gets at most one run, ever.
// POST /admin/parked/redispatch takes 1 to 100 source_event_ids; they are sent oldest first.
import { announce, byId, h, setError, show, timeElement } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { confirmFor } from './confirm-dialog.js';
import { gate, may } from './roles.js';
import { openRun } from './run-record.js';

/** The most source_event_ids one request takes. */
const MAX_REDISPATCH = 100;

/** The listed parked deliveries, in the listing's order (newest first). */
let listed = [];
/** Ticked rows, by source_event_id (kept across a refresh of the listing). */
const selected = new Set();
/** The last outcome of each re-dispatched row, by source_event_id (shown again after a refresh). */
const outcomes = new Map();
/** Each listed row's checkbox and outcome cell, by source_event_id. */
const rows = new Map();
let checkboxIds = 0;

/** What the row names: its delivery, or (no delivery behind it) the stream it came from. */
function nameOf(entry) {
  return entry.delivery_id ?? entry.source_stream;
}

// ------------------------------------------------------------------ rows (activity-listings.js renders the table)

/** Forgets the rows shown (the listing is being replaced). */
export function resetParkedRows() {
  listed = [];
  rows.clear();
}

/** The first cell's content: the time parked, with the row's checkbox for operators (the time is its label too). */
export function parkedFirstCell(entry) {
  const time = timeElement(entry.parked_at);
  if (!may('operator')) return [time];
  checkboxIds += 1;
  const id = `parked-select-${checkboxIds}`;
  const checkbox = h('input', {
    type: 'checkbox',
    id,
    'aria-label': `Select the parked delivery ${nameOf(entry)}`,
    onchange: (event) => {
      if (event.currentTarget.checked) selected.add(entry.source_event_id);
      else selected.delete(entry.source_event_id);
      renderControls();
    },
  });
  checkbox.checked = selected.has(entry.source_event_id);
  listed.push(entry);
  rows.set(entry.source_event_id, { checkbox, outcome: null });
  return [checkbox, ' ', h('label', { for: id, class: 'row-label' }, time)];
}

/** The last cell: this row's re-dispatch outcome, when it has one. */
export function parkedOutcomeCell(entry) {
  const cell = h('td', { class: 'outcome' });
  const row = rows.get(entry.source_event_id);
  if (row) row.outcome = cell;
  renderOutcome(cell, outcomes.get(entry.source_event_id));
  return cell;
}

/** The select-all box, the button and the role note, once the rows are rendered. */
export function renderControls() {
  const hasRows = byId('parked-body').children.length > 0;
  const allowed = gate('operator', {
    controls: [byId('redispatch-controls')],
    note: byId('redispatch-role-note'),
    what: 'Re-dispatching parked deliveries',
  });
  if (!hasRows) {
    show(byId('redispatch-controls'), false);
    show(byId('redispatch-role-note'), false);
  }
  if (!allowed) return;
  const ticked = listed.filter((entry) => selected.has(entry.source_event_id)).length;
  const all = byId('parked-select-all');
  all.checked = listed.length > 0 && ticked === listed.length;
  all.indeterminate = ticked > 0 && ticked < listed.length;
  const button = byId('redispatch');
  button.disabled = ticked === 0;
  button.textContent = ticked === 0 ? 'Re-dispatch selected…' : `Re-dispatch selected (${ticked})…`;
}

// ------------------------------------------------------------------ outcomes

/** Each outcome in words (then the server's detail, or `otherwise`); `run` adds a button opening the run record. */
const OUTCOMES = {
  created: { text: 'Run created:', run: true, ok: true },
  already_created: { text: 'Already has its run:', run: true, ok: true },
  parked: { text: 'Parked again:', run: false, ok: false },
  held: { text: 'Held:', run: false, ok: true, otherwise: 'it runs when its webhook is released' },
  not_found: { text: 'Not found:', run: false, ok: false },
  not_redispatchable: { text: 'Cannot be re-dispatched:', run: false, ok: false },
};

function renderOutcome(cell, result) {
  cell.replaceChildren();
  cell.className = 'outcome';
  cell.removeAttribute('data-outcome');
  if (!result) return;
  const words = Object.hasOwn(OUTCOMES, result.outcome) ? OUTCOMES[result.outcome] : { text: `${result.outcome}:`, run: false, ok: false };
  cell.classList.add(words.ok ? 'outcome-ok' : 'outcome-problem');
  cell.setAttribute('data-outcome', String(result.outcome));
  cell.append(h('strong', { text: words.text }));
  if (words.run && typeof result.run_id === 'string') {
    cell.append(
      ' ',
      h('button', {
        type: 'button',
        class: 'link-button',
        text: result.run_id,
        'aria-label': `View run ${result.run_id}`,
        'data-id': result.run_id,
        onclick: (event) => void openRun(result.run_id, event.currentTarget),
      }),
    );
  }
  const detail = typeof result.detail === 'string' && result.detail !== '' ? result.detail : words.otherwise;
  if (detail) cell.append(' ', detail);
}

const SUMMARY_WORDS = {
  created: ['run created', 'runs created'],
  already_created: ['already had its run', 'already had their runs'],
  parked: ['parked again', 'parked again'],
  held: ['held until its webhook is released', 'held until their webhook is released'],
  not_found: ['not found', 'not found'],
  not_redispatchable: ['cannot be re-dispatched', 'cannot be re-dispatched'],
};

/** "Re-dispatched 3 deliveries: 1 run created, 2 parked again." */
function summaryOf(results) {
  const counts = new Map();
  for (const result of results) counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
  const parts = [...counts].map(([outcome, count]) => {
    const words = SUMMARY_WORDS[outcome] ?? [outcome, outcome];
    return `${count} ${count === 1 ? words[0] : words[1]}`;
  });
  return `Re-dispatched ${results.length} ${results.length === 1 ? 'delivery' : 'deliveries'}: ${parts.join(', ')}.`;
}

// ------------------------------------------------------------------ re-dispatch

async function redispatch() {
  const button = byId('redispatch');
  const error = byId('redispatch-error');
  // Oldest first: the listing is newest first.
  const chosen = listed.filter((entry) => selected.has(entry.source_event_id)).reverse();
  if (chosen.length === 0) return;
  if (chosen.length > MAX_REDISPATCH) {
    setError(error, `Select at most ${MAX_REDISPATCH} parked deliveries at a time (${chosen.length} are selected).`);
    button.focus();
    return;
  }
  const many = chosen.length === 1 ? 'the parked delivery' : `${chosen.length} parked deliveries`;
  const confirmed = await confirmFor(button, {
    title: `Re-dispatch ${many}?`,
    message:
      `${chosen.length === 1 ? 'It is' : 'They are'} handed to the dispatcher again${chosen.length === 1 ? '' : ', oldest first'}, ` +
      'judged as when accepted. A run is created for each one that can run now — never a second run for a delivery — ' +
      'and one that still cannot is parked again with its reason. The outcome shows beside each delivery.',
    confirmLabel: 'Re-dispatch',
  });
  if (!confirmed) return;
  try {
    const answer = await api('POST', '/admin/parked/redispatch', { source_event_ids: chosen.map((entry) => entry.source_event_id) });
    if (!answer.ok || !Array.isArray(answer.json?.results)) {
      setError(error, `Could not re-dispatch: ${describeFailure(answer)}`);
      renderControls();
      button.focus();
      return;
    }
    setError(error, '');
    for (const result of answer.json.results) {
      outcomes.set(result.source_event_id, result);
      selected.delete(result.source_event_id);
      const row = rows.get(result.source_event_id);
      if (row) {
        row.checkbox.checked = false;
        if (row.outcome) renderOutcome(row.outcome, result);
      }
    }
    renderControls();
    const summary = summaryOf(answer.json.results);
    byId('redispatch-summary').textContent = summary;
    announce(summary);
    byId('parked-title').focus();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server. Nothing was re-dispatched; try again.');
    renderControls();
  }
}

function selectAll(event) {
  const tick = event.currentTarget.checked;
  for (const entry of listed) {
    if (tick) selected.add(entry.source_event_id);
    else selected.delete(entry.source_event_id);
    const row = rows.get(entry.source_event_id);
    if (row) row.checkbox.checked = tick;
  }
  renderControls();
}

export function wireParkedRedispatch() {
  byId('parked-select-all').addEventListener('change', selectAll);
  byId('redispatch').addEventListener('click', () => void redispatch());
}
