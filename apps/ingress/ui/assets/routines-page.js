// The routine list: every routine with its webhook's state, each linking to its Config page.
import { byId, clear, h, setError, show } from './dom.js';
import { badgeOf } from './labels.js';
import { SignedOutError, api, describeFailure, withSession } from './session.js';
import { loadAccounts, onAccounts, wireAccountForm } from './accounts-panel.js';
import { wireRoutineForm } from './routine-form.js';

async function loadRoutines() {
  const error = byId('routines-error');
  try {
    const response = await api('GET', '/admin/routines');
    if (!response.ok) {
      setError(error, `Could not load the routines: ${describeFailure(response)}`);
      return;
    }
    setError(error, '');
    renderRoutines(response.json.routines);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

function renderRoutines(routines) {
  const body = byId('routines-body');
  clear(body);
  show(byId('routines-empty'), routines.length === 0);
  show(byId('routines-table'), routines.length > 0);
  for (const routine of routines) {
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

wireAccountForm();
wireRoutineForm(onAccounts);

withSession(() => {
  void loadRoutines();
  void loadAccounts();
});
