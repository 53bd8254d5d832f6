// A delivery's payload in the deliveries listing: its state ("kept (until …)", "expired",
// "erased"), and, for admins, "Erase payload…" on a kept one: a confirmation saying what it does,
// then POST /admin/erasures {delivery_ids: [id]}, then GET /admin/erasures/{id} until it is done or
// failed (for at most a minute: after that the page says it is still running), then the listing
// again and the outcome in the row and below the heading. activity-listings.js renders the table.
import { byId, h, setError, show, timeElement } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { confirmAction } from './confirm-dialog.js';
import { payloadStateLabel } from './labels.js';
import { may, roleNote } from './roles.js';

/** How long the page follows one erasure before saying it is still running. */
const FOLLOW_FOR_MS = 60_000;
/** The first look, then each next one twice as late, up to the longest wait. */
const FIRST_LOOK_MS = 250;
const LONGEST_WAIT_MS = 2_000;

/**
 * What happened to each delivery erased from this page, by delivery_id (shown again after a
 * refresh): `{kind: 'erasing' | 'erased' | 'nothing' | 'running' | 'failed' | 'refused' | 'lost', text}`.
 */
const outcomes = new Map();

/** The listed deliveries, by delivery_id: a row's cell is drawn again from it when its outcome changes. */
const listed = new Map();

/** Lists the deliveries again (activity-listings.js's loadDeliveries). */
let refresh = async () => undefined;

const SHORT = {
  erasing: 'Erasing…',
  running: 'Still erasing: refresh later',
  failed: 'Erasure failed',
  refused: 'Not erased',
  lost: 'Outcome unknown: refresh later',
};

/** Outcomes shown as problems (in the error line, and in the row in the problem colour). */
const PROBLEMS = new Set(['failed', 'refused', 'lost']);

function wait(ms) {
  return new Promise((resolve) => {
    window.setTimeout(resolve, ms);
  });
}

/** The state's words: "kept (until <date>)" (a legacy payload without expiry: "kept"), "expired", "erased". */
function stateWords(delivery) {
  const done = outcomes.get(delivery.delivery_id)?.kind === 'erased';
  // The erasure said done: a listing not yet caught up still says kept.
  const state = done ? 'erased' : delivery.payload_state;
  if (state === 'kept' && typeof delivery.payload_expires_at === 'string')
    return ['kept (until ', timeElement(delivery.payload_expires_at), ')'];
  return [payloadStateLabel(state ?? 'kept')];
}

/** The deliveries table's last cell: the payload's state, the admin's action on a kept one, and its outcome. */
export function payloadCell(delivery) {
  const id = delivery.delivery_id;
  listed.set(id, delivery);
  const outcome = outcomes.get(id);
  const cell = h('td', { class: 'payload-cell' }, h('span', { class: 'payload-state' }, ...stateWords(delivery)));
  const kept = delivery.payload_state === 'kept' && outcome?.kind !== 'erased';
  if (kept && may('admin')) {
    cell.append(
      ' ',
      h('button', {
        type: 'button',
        class: 'danger erase-payload',
        text: 'Erase payload…',
        'aria-label': `Erase the payload of delivery ${id}`,
        'data-id': id,
        // While its erasure runs the button stays (focus stays on it) but does nothing.
        'aria-disabled': outcome?.kind === 'erasing' ? 'true' : undefined,
        onclick: () => {
          if (outcomes.get(id)?.kind !== 'erasing') void erase(id);
        },
      }),
    );
  }
  if (outcome && Object.hasOwn(SHORT, outcome.kind)) {
    const problem = PROBLEMS.has(outcome.kind);
    cell.append(' ', h('span', { class: problem ? 'erase-outcome outcome-problem' : 'erase-outcome', text: SHORT[outcome.kind] }));
  }
  return cell;
}

/** The listed row's "Erase payload…" button, if it shows one. */
function eraseButtonOf(id) {
  return document.querySelector(`#deliveries-body button.erase-payload[data-id="${CSS.escape(id)}"]`);
}

/** Draws a listed row's payload cell again (its outcome changed), keeping the focus on its button. */
function redraw(id) {
  const delivery = listed.get(id);
  const cell = document.querySelector(`#deliveries-body tr[data-id="${CSS.escape(id)}"] td.payload-cell`);
  if (!delivery || !cell) return;
  const focused = cell.contains(document.activeElement);
  cell.replaceWith(payloadCell(delivery));
  if (focused) eraseButtonOf(id)?.focus();
}

/** Below the heading, for viewers and operators: why no row offers "Erase payload…". */
export function renderEraseNote(hasRows) {
  const note = byId('erase-role-note');
  const refused = hasRows && !may('admin');
  note.textContent = refused ? roleNote('admin', 'Erasing a payload') : '';
  show(note, refused);
}

// ------------------------------------------------------------------ erase

function confirmMessage(id) {
  return (
    `The payload of delivery ${id} is removed for good, from every file the service writes (the event store and the read models): ` +
    'it cannot be shown, replayed or run again. The delivery and its run stay on record (ids, times, account, routine), ' +
    'with no payload and no initial message. If the delivery has not run yet, it never runs. ' +
    'Where the service uses Kafka, the copies on its topics expire by a time shown once the erasure is done.'
  );
}

/** GET /admin/erasures/{id} until it is no longer running, for at most FOLLOW_FOR_MS: `{erasure}` or `{problem}`. */
async function follow(erasureId) {
  const until = Date.now() + FOLLOW_FOR_MS;
  let delay = FIRST_LOOK_MS;
  for (;;) {
    await wait(Math.min(delay, Math.max(0, until - Date.now())));
    const answer = await api('GET', `/admin/erasures/${encodeURIComponent(erasureId)}`);
    if (!answer.ok) return { problem: `Could not follow the erasure ${erasureId}: ${describeFailure(answer)}` };
    if (answer.json.status !== 'running' || Date.now() >= until) return { erasure: answer.json };
    delay = Math.min(delay * 2, LONGEST_WAIT_MS);
  }
}

/** "Copies on Kafka expire by <time>." when the answer gives that time. */
function kafkaText(erasure) {
  const by = erasure.kafka_copies_expire_by;
  if (typeof by !== 'string') return '';
  const date = new Date(by);
  return ` Copies on Kafka expire by ${Number.isNaN(date.getTime()) ? by : date.toLocaleString()}.`;
}

/** The outcome of a followed erasure, for the row and the line below the heading. */
function outcomeOf(id, erasure) {
  if (erasure.status === 'done' && erasure.erased > 0)
    return {
      kind: 'erased',
      text: `The payload of delivery ${id} is erased: it is in no file the service writes; the delivery and its run stay on record.${kafkaText(erasure)}`,
    };
  if (erasure.status === 'done')
    return { kind: 'nothing', text: `Nothing was erased for delivery ${id}: its payload was no longer kept (expired or erased already).` };
  if (erasure.status === 'failed')
    return {
      kind: 'failed',
      text:
        `Erasing the payload of delivery ${id} failed (erasure ${erasure.erasure_id}): the store could not reclaim the space, ` +
        "so bytes of it may remain in the service's files. The service's log says why.",
    };
  return {
    kind: 'running',
    text: `The erasure ${erasure.erasure_id} of delivery ${id}'s payload is still running after a minute: refresh the deliveries later to see it erased.`,
  };
}

async function erase(id) {
  const error = byId('erase-error');
  const confirmed = await confirmAction({
    title: `Erase the payload of delivery ${id}?`,
    message: confirmMessage(id),
    confirmLabel: 'Erase payload',
  });
  if (!confirmed) {
    eraseButtonOf(id)?.focus();
    return;
  }
  outcomes.set(id, { kind: 'erasing' });
  redraw(id);
  setError(error, '');
  byId('erase-result').textContent = `Erasing the payload of delivery ${id}…`;
  let outcome;
  try {
    const answer = await api('POST', '/admin/erasures', { delivery_ids: [id] });
    if (!answer.ok || typeof answer.json?.erasure_id !== 'string') {
      outcome = { kind: 'refused', text: `Could not erase the payload of delivery ${id}: ${describeFailure(answer)}` };
    } else {
      const followed = await follow(answer.json.erasure_id);
      outcome = followed.erasure ? outcomeOf(id, followed.erasure) : { kind: 'lost', text: followed.problem };
    }
  } catch (failure) {
    if (failure instanceof SignedOutError) {
      outcomes.delete(id);
      return;
    }
    outcome = { kind: 'refused', text: `Could not reach the server: the payload of delivery ${id} may not be erased; refresh to see.` };
  }
  outcomes.set(id, outcome);
  // The error line is an alert, the result line a live status: either is announced.
  const problem = PROBLEMS.has(outcome.kind);
  setError(error, problem ? outcome.text : '');
  byId('erase-result').textContent = problem ? '' : outcome.text;
  // Focus follows only when it was still on this row's button (the listing is drawn again).
  const hadFocus = eraseButtonOf(id) === document.activeElement;
  await refresh();
  if (!hadFocus) return;
  const again = eraseButtonOf(id);
  if (again) again.focus();
  else byId('deliveries-title').focus();
}

/** `reload` lists the deliveries again (after an erasure). */
export function wirePayloadErasure({ reload }) {
  refresh = reload;
}
