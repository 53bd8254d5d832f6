// The Config page's listings, newest first, each with "Show older" (the API's cursors): recent
// deliveries (each opening its run record; their payload's state and erasing it are
// payload-erasure.js's), rejected attempts, parked deliveries (their selection and re-dispatch
// outcomes are parked-redispatch.js's).
import { loadListing } from './admin-listing.js';
import { byId, clear, h, setError, show, timeElement } from './dom.js';
import { attemptReasonLabel } from './labels.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { routinePath } from './config-state.js';
import { openRun } from './run-record.js';
import { refreshHandshake } from './handshake-status.js';
import { loadActivityChart } from './activity-chart.js';
import { payloadCell, renderEraseNote, wirePayloadErasure } from './payload-erasure.js';
import { parkedFirstCell, parkedOutcomeCell, renderControls, resetParkedRows } from './parked-redispatch.js';

const DELIVERY_LIMIT = 20;

/** Where "Show older" continues each listing: the API's next_cursor (null: nothing older). */
const cursors = { deliveries: null, attempts: null, parked: null };

/** `?limit=&cursor=` of a listing: the first page, or the one after `cursor`. */
function page(cursor) {
  return `limit=${DELIVERY_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

/** Shows `{name}-table` when its body has rows (kept or `arriving`), else `{name}-empty`; returns whether empty. */
function showRows(name, body, arriving) {
  const empty = body.children.length === 0 && arriving === 0;
  show(byId(`${name}-empty`), empty);
  show(byId(`${name}-table`), !empty);
  return empty;
}

// ------------------------------------------------------------------ deliveries

/** The newest deliveries (replacing the table), or with `older` the page after those shown. */
export async function loadDeliveries({ older = false } = {}) {
  const error = byId('deliveries-error');
  try {
    const base = routinePath('/webhook');
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
  renderEraseNote(!showRows('deliveries', body, deliveries.length));
  for (const delivery of deliveries) {
    const replays = replayCounts.get(delivery.delivery_id) ?? 0;
    const viewRun = h('button', {
      type: 'button',
      class: 'link-button',
      text: delivery.run_id,
      'aria-label': `View run ${delivery.run_id}`,
      'data-id': delivery.run_id,
      onclick: (event) => void openRun(delivery.run_id, event.currentTarget, delivery.payload_state),
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
        payloadCell(delivery),
      ),
    );
  }
}

// ------------------------------------------------------------------ rejected attempts

export async function loadAttempts({ older = false } = {}) {
  const path = `${routinePath('/webhook/attempts')}?${page(older ? cursors.attempts : null)}`;
  await loadListing('attempts-error', path, 'rejected attempts', (json) => {
    const attempts = json.attempts;
    if (!older) {
      refreshHandshake();
      void loadActivityChart();
    }
    cursors.attempts = json.next_cursor ?? null;
    show(byId('more-attempts'), cursors.attempts !== null);
    const body = byId('attempts-body');
    if (!older) clear(body);
    showRows('attempts', body, attempts.length);
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
  });
}

// ------------------------------------------------------------------ parked deliveries

export async function loadParked({ older = false } = {}) {
  const path = `${routinePath('/webhook/parked')}?${page(older ? cursors.parked : null)}`;
  await loadListing('parked-error', path, 'parked deliveries', (json) => {
    const parked = json.parked;
    cursors.parked = json.next_cursor ?? null;
    show(byId('more-parked'), cursors.parked !== null);
    const body = byId('parked-body');
    if (!older) {
      clear(body);
      resetParkedRows();
    }
    showRows('parked', body, parked.length);
    for (const entry of parked) {
      body.append(
        h(
          'tr',
          { 'data-id': entry.delivery_id ?? entry.source_event_id },
          h('td', {}, ...parkedFirstCell(entry)),
          h('td', { text: entry.delivery_id ?? entry.source_stream }),
          h('td', { text: entry.error }),
          parkedOutcomeCell(entry),
        ),
      );
    }
    renderControls();
  });
}

export function wireActivityListings() {
  wirePayloadErasure({ reload: () => loadDeliveries() });
  byId('refresh-deliveries').addEventListener('click', () => void loadDeliveries());
  byId('refresh-attempts').addEventListener('click', () => void loadAttempts());
  byId('more-deliveries').addEventListener('click', () => void loadDeliveries({ older: true }));
  byId('more-attempts').addEventListener('click', () => void loadAttempts({ older: true }));
  byId('refresh-parked').addEventListener('click', () => void loadParked());
  byId('more-parked').addEventListener('click', () => void loadParked({ older: true }));
}
