// The held webhook's two ways out, each behind a confirmation: "Release held runs" judges every held
// delivery as things stand now (the routine as changed during the hold, the account still active
// and in scope) and runs it in the order it arrived, or parks one the routine now refuses;
// "Discard held deliveries" parks every one of them (no run; each can be re-dispatched from Parked
// deliveries if the discard was a mistake) after a second confirmation that names the count.
import { announce, byId, setError } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { confirmAction } from './confirm-dialog.js';
import { loadAudit } from './audit-trail.js';
import { loadParked } from './activity-listings.js';
import { applyView, deliveriesText, focusFirstShown, refusedBecauseStale } from './hold-panel.js';

/** The count the page shows now: null when it is not known. */
function heldCount() {
  return typeof loaded.webhook.held_deliveries === 'number' ? loaded.webhook.held_deliveries : null;
}

async function release() {
  const count = heldCount();
  const which =
    count === null
      ? 'Every held delivery will run in the order it arrived'
      : count === 0
        ? 'No delivery is waiting'
        : count === 1
          ? '1 delivery will run'
          : `${deliveriesText(count)} will run in the order they arrived`;
  const confirmed = await confirmAction({
    title: 'Release the held runs?',
    message:
      `${which}, with the routine as it is now (its instructions, tools and account scope). ` +
      'One whose account is no longer active or in scope is parked instead. Deliveries that arrive from now on run at once again.',
    confirmLabel: 'Release',
  });
  if (!confirmed) return byId('release').focus();
  const answer = await send({}, byId('release'), 'release the runs');
  if (!answer) return;
  const waiting = answer.held_deliveries ?? 0;
  announce(
    waiting > 0 ? `Released: running ${deliveriesText(waiting)} in the order they arrived.` : 'Released: deliveries run at once again.',
  );
}

async function discard() {
  const count = heldCount();
  const what = count === null ? 'every held delivery' : deliveriesText(count, 'held');
  const first = await confirmAction({
    title: 'Discard the held deliveries?',
    message:
      `No run will be created for ${what}: each is parked as "discarded by operator" and listed under Parked deliveries, ` +
      'where it can still be re-dispatched. The hold ends; deliveries that arrive from now on run at once again.',
    confirmLabel: 'Continue…',
  });
  if (!first) return byId('discard').focus();
  const label = count === null ? 'Discard the held deliveries' : `Discard ${deliveriesText(count, 'held')}`;
  const second = await confirmAction({
    title: 'Are you sure?',
    message: `${label}: none of them will run unless someone re-dispatches it.`,
    confirmLabel: label,
  });
  if (!second) return byId('discard').focus();
  const answer = await send({ discard: true, held_since: loaded.webhook.held_since }, byId('discard'), 'discard the held deliveries');
  if (!answer) return;
  // The drain parks them a moment later: while some wait the page says "parking", and the check
  // that finds none waiting says they are all parked.
  const held = count === null ? 'the held deliveries' : deliveriesText(count, 'held');
  announce(
    (answer.held_deliveries ?? 0) > 0
      ? `Discarded: parking ${held}, no run.`
      : `Discarded: ${held} ${count === 1 ? 'is' : 'are'} parked, no run.`,
  );
  void loadParked();
}

/** POSTs the release; the new view, or null after showing why not. */
async function send(body, button, what) {
  const error = byId('hold-error');
  try {
    const answer = await api('POST', routinePath('/webhook/release'), body);
    if (!answer.ok) {
      setError(error, `Could not ${what}: ${describeFailure(answer)}`);
      await refusedBecauseStale(answer);
      focusFirstShown(button);
      return null;
    }
    setError(error, '');
    applyView(answer.json, { announceDone: false });
    byId('webhook-title').focus();
    void loadAudit();
    return answer.json;
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server. Nothing was changed; try again.');
    return null;
  }
}

export function wireReleaseActions() {
  byId('release').addEventListener('click', () => void release());
  byId('discard').addEventListener('click', () => void discard());
}
