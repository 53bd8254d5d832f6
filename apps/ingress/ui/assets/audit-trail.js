// The audit trail (GET /admin/audit), newest first, one line an entry: "Secret rotated by
// ada@example.com, 14:02"; a refused attempt stands out: "Denied: vic@example.com tried to rotate
// the secret, 14:03 — insufficient_role: …". "Show older entries" follows next_cursor. On a
// routine's Config page it is that routine's trail; on the routine list, everyone's, filtered by
// actor. Viewers and up may read it.
import { byId, clear, h, setError, show } from './dom.js';
import { auditActionWords } from './labels.js';
import { actorText } from './roles.js';
import { SignedOutError, api, describeFailure } from './session.js';

const PAGE_SIZE = 20;

/** What the trail lists: `{routineId}` or `{actor}`, and how to name an entry's target (or null). */
const scope = { routineId: null, actor: null, targetText: () => null };
let cursor = null;

export function configureAudit({ routineId = null, targetText = () => null }) {
  scope.routineId = routineId;
  scope.targetText = targetText;
}

/** Lists only `actor`'s entries (their subject or display; empty: everyone's), from the newest. */
export function filterAuditByActor(actor) {
  scope.actor = actor === '' ? null : actor;
  return loadAudit();
}

function query(older) {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (scope.routineId !== null) params.set('routine_id', scope.routineId);
  if (scope.actor !== null) params.set('actor', scope.actor);
  if (older && cursor !== null) params.set('cursor', cursor);
  return params.toString();
}

/** The newest entries (replacing the list), or with `older` the page after those shown. */
export async function loadAudit({ older = false } = {}) {
  const error = byId('audit-error');
  try {
    const answer = await api('GET', `/admin/audit?${query(older)}`);
    if (!answer.ok) {
      setError(error, `Could not load the audit trail: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    cursor = answer.json.next_cursor ?? null;
    render(answer.json.entries, { append: older });
    show(byId('more-audit'), cursor !== null);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

function render(entries, { append }) {
  const list = byId('audit-list');
  if (!append) clear(list);
  for (const entry of entries) list.append(line(entry));
  const empty = list.children.length === 0;
  show(byId('audit-empty'), empty);
  show(list, !empty);
}

/** An ISO time as a person reads it: "14:02" today, "3 Nov 2025, 14:02" another day. */
function whenText(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (date.toDateString() === new Date().toDateString()) return time;
  return `${date.toLocaleDateString([], { day: 'numeric', month: 'short', year: 'numeric' })}, ${time}`;
}

function line(entry) {
  const denied = entry.outcome === 'denied';
  const target = scope.targetText(entry.target ?? {});
  const on = target ? ` (${target})` : '';
  const who = entry.actor ? actorText(entry.actor) : null;
  const what = denied
    ? `${who ?? 'Someone not identified'} tried to ${auditActionWords(entry.action, { tried: true })}${on}`
    : `${auditActionWords(entry.action, { tried: false })}${on}${who ? ` by ${who}` : ''}`;
  const when = h('time', { datetime: String(entry.at), title: String(entry.at), text: whenText(entry.at) });
  return h(
    'li',
    { class: denied ? 'audit-entry audit-denied' : 'audit-entry', title: entry.action },
    denied ? h('strong', { class: 'audit-outcome', text: 'Denied:' }) : null,
    denied ? ' ' : null,
    h('span', { class: 'audit-what', text: what }),
    ', ',
    when,
    entry.detail ? h('span', { class: 'audit-detail', text: ` — ${entry.detail}` }) : null,
  );
}

export function wireAuditTrail() {
  byId('refresh-audit').addEventListener('click', () => void loadAudit());
  byId('more-audit').addEventListener('click', () => void loadAudit({ older: true }));
}
