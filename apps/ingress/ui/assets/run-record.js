// The run record of a delivery, opened from the deliveries table: its facts, its payload exactly
// as stored, its initial message; once the payload is removed (expired or erased), when that was instead.
import { byId, clear, setError, show, timeElement } from './dom.js';
import { payloadStateLabel } from './labels.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded } from './config-state.js';

/** Why a run is missing: the page's own words (the dispatcher is about to make it), or a hold's. */
let missingText = null;
const HELD_TEXT =
  "This run does not exist yet: the webhook's runs are held. The delivery is kept, and its run is created when the hold is released, in the order the deliveries arrived.";
const DRAINING_TEXT =
  'This run does not exist yet: the hold was released and the held deliveries are being run in the order they arrived. Try again in a moment.';

function whyMissing(payloadState) {
  if (payloadState === 'expired' || payloadState === 'erased')
    return `This run was never made: the delivery's payload was ${payloadState} before it ran, so it never runs. The delivery stays on record.`;
  const webhook = loaded.webhook;
  if (webhook?.held) return HELD_TEXT;
  if ((webhook?.held_deliveries ?? 0) > 0) return DRAINING_TEXT;
  return missingText;
}

/**
 * The payload exactly as stored: `GET /admin/runs/{id}` splices it in verbatim as the last
 * member, after `"payload_format":"json"` — reading it from the text keeps every digit.
 */
export function payloadText(text, run) {
  if (run.payload_format === 'text') return String(run.payload);
  const marker = '"payload_format":"json","payload":';
  const at = text.indexOf(marker);
  if (at >= 0 && text.endsWith('}')) return text.slice(at + marker.length, -1);
  return JSON.stringify(run.payload);
}

/**
 * The payload and the initial message, or, once the payload is removed, "Payload erased at <time>"
 * in their place (the record stays, they are gone).
 */
function showPayload(text, run) {
  const kept = (run.payload_state ?? 'kept') === 'kept';
  show(byId('run-texts'), kept);
  const removed = byId('run-payload-removed');
  clear(removed);
  show(removed, !kept);
  byId('run-payload-format').textContent = kept ? run.payload_format : '';
  byId('run-payload').textContent = kept ? payloadText(text, run) : '';
  byId('run-initial-message').textContent = kept ? run.initial_message : '';
  if (kept) return;
  const when = typeof run.payload_removed_at === 'string' ? [' at ', timeElement(run.payload_removed_at)] : [];
  removed.append(
    `Payload ${payloadStateLabel(run.payload_state)}`,
    ...when,
    ". The payload and the initial message are in no file the service writes any more; the run's record stays.",
  );
}

/** Where focus returns when the record closes. */
let runTrigger = null;

/** Opens the record of `runId`; `payloadState` (the listing's) says why a missing run never comes. */
export async function openRun(runId, trigger, payloadState = 'kept') {
  runTrigger = trigger;
  const section = byId('run-record');
  try {
    const answer = await api('GET', `/admin/runs/${encodeURIComponent(runId)}`);
    const found = answer.status === 200;
    missingText ??= byId('run-missing').textContent;
    byId('run-missing').textContent = whyMissing(payloadState);
    byId('run-title').textContent = `Run ${runId}`;
    show(byId('run-missing'), !found);
    show(byId('run-facts'), found);
    show(byId('run-texts'), found);
    show(byId('run-payload-removed'), false);
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
      showPayload(answer.text, run);
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

export function wireRunRecord() {
  byId('close-run').addEventListener('click', closeRun);
}
