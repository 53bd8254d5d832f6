// The last handshake of a webhook whose provider verifies its URL (Slack, Zoom, Discord, Twitch, X,
// Meta, Microsoft Graph): read from the webhook's rejected attempts — the service records each
// handshake there (handshake_answered, handshake_refused) — with where to paste the URL in the
// provider. The service keeps the newest 100 lines per webhook: one page holds them all.
import { byId, show, timeElement } from './dom.js';
import { attemptReasonLabel } from './labels.js';
import { SignedOutError, api } from './session.js';
import { routinePath } from './config-state.js';
import { hasHandshake, whereToPaste } from './verification.js';

const KEPT_LINES = 100;
const HANDSHAKE_REASONS = ['handshake_answered', 'handshake_refused'];

/** The newest handshake line among the attempts (newest first), or null. */
export function lastHandshake(attempts) {
  return attempts.find((attempt) => HANDSHAKE_REASONS.includes(attempt.reason)) ?? null;
}

/** Shows the handshake row for a handshake scheme (hidden otherwise), then loads its last result. */
export function renderHandshake(scheme) {
  const handshakes = hasHandshake(scheme);
  show(byId('webhook-handshake-term'), handshakes);
  show(byId('webhook-handshake'), handshakes);
  if (!handshakes) return;
  byId('webhook-handshake-where').textContent = whereToPaste(scheme) ?? '';
  void loadLastHandshake();
}

/** Loads the last handshake again when the row is shown (the attempts were refreshed). */
export function refreshHandshake() {
  if (!byId('webhook-handshake').hidden) void loadLastHandshake();
}

async function loadLastHandshake() {
  const result = byId('webhook-handshake-result');
  try {
    const answer = await api('GET', `${routinePath('/webhook/attempts')}?limit=${KEPT_LINES}`);
    if (!answer.ok) {
      result.textContent = 'Could not load the last handshake.';
      return;
    }
    const last = lastHandshake(answer.json.attempts);
    if (last === null) {
      result.textContent = 'None yet: paste the URL in the provider and let it check.';
      result.dataset.reason = '';
      return;
    }
    result.dataset.reason = last.reason;
    result.replaceChildren(`${attemptReasonLabel(last.reason)}, `, timeElement(last.at), ` from ${last.source_address}.`);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) result.textContent = 'Could not reach the server.';
  }
}
