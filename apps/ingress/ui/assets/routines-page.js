// The routine list: every routine with its webhook's state, each linking to its Config page;
// connected accounts; new routine; API keys (admins); everyone's audit trail. What the signed-in
// role cannot do is hidden, and the page says why where it would be.
import { loadListing, listingBody } from './admin-listing.js';
import { byId, h } from './dom.js';
import { badgeOf } from './labels.js';
import { withSession } from './sign-in-panel.js';
import { gate, may } from './roles.js';
import { loadAccounts, onAccounts, wireAccountForm } from './accounts-panel.js';
import { wireRoutineForm } from './routine-form.js';
import { apiKeyName, loadApiKeys, wireApiKeysPanel } from './api-keys-panel.js';
import { configureAudit, filterAuditByActor, loadAudit, wireAuditTrail } from './audit-trail.js';

/** Names of what the audit trail's entries act on, from the listings on this page. */
const routineNames = new Map();
const accountEmails = new Map();

async function loadRoutines() {
  await loadListing('routines-error', '/admin/routines', 'routines', ({ routines }) => renderRoutines(routines));
}

function renderRoutines(routines) {
  const body = listingBody('routines', routines.length);
  byId('routines-empty-create').hidden = !may('admin');
  for (const routine of routines) {
    routineNames.set(routine.id, routine.name);
    const badge = badgeOf(routine.webhook_state, routine.webhook_blocked);
    body.append(
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, h('a', { href: `/ui/routines/${encodeURIComponent(routine.id)}/config`, text: routine.name })),
        h('td', { text: routine.mode }),
        h('td', {}, h('span', { class: badge.className, text: badge.text })),
      ),
    );
  }
}

/** "routine "Triage"", "account ops@example.com", "API key "ci"", or what the entry names. */
function targetText(target) {
  if (target.routine_id && routineNames.has(target.routine_id)) return `routine "${routineNames.get(target.routine_id)}"`;
  if (target.type === 'account' && accountEmails.has(target.id)) return `account ${accountEmails.get(target.id)}`;
  if (target.type === 'api_key' && apiKeyName(target.id) !== null) return `API key "${apiKeyName(target.id)}"`;
  if (target.type === 'api_key' && target.id) return `API key ${target.id}`;
  if (target.routine_id) return `routine ${target.routine_id}`;
  return target.id ? `${target.type} ${target.id}` : null;
}

function wireAuditFilter() {
  const form = byId('audit-filter');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void filterAuditByActor(byId('audit-actor').value.trim());
  });
  byId('audit-clear').addEventListener('click', () => {
    byId('audit-actor').value = '';
    void filterAuditByActor('');
  });
}

wireAccountForm();
wireRoutineForm(onAccounts);
wireApiKeysPanel();
wireAuditTrail();
wireAuditFilter();
onAccounts((accounts) => {
  for (const account of accounts) accountEmails.set(account.id, account.email);
});
configureAudit({ targetText });

withSession(() => {
  gate('admin', { controls: [byId('account-form')], note: byId('account-form-role'), what: 'Connecting an account' });
  gate('admin', { controls: [byId('routine-form')], note: byId('routine-form-role'), what: 'Creating a routine' });
  const reads = gate('viewer', { controls: [byId('audit-body')], note: byId('audit-role'), what: 'Reading the audit trail' });
  const admin = gate('admin', { controls: [byId('api-keys-admin')], note: byId('api-keys-role'), what: 'Managing API keys' });
  void (async () => {
    await Promise.all([loadRoutines(), loadAccounts(), admin ? loadApiKeys() : undefined]);
    // After the listings, so each line can name its routine, account or key.
    if (reads) await loadAudit();
  })();
});
