// Connected accounts on the routine list: the list, and the "Connect an account" form (the admin
// API's POST /admin/accounts; its validation and messages, shown as the API words them).
import { loadListing, listingBody } from './admin-listing.js';
import { announce, byId, h, setError } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';

const listeners = [];

/** Calls `listener(accounts)` with every fresh list (the routine form's scope choices follow it). */
export function onAccounts(listener) {
  listeners.push(listener);
}

export async function loadAccounts() {
  await loadListing('accounts-error', '/admin/accounts', 'accounts', ({ accounts }) => {
    render(accounts);
    for (const listener of listeners) listener(accounts);
  });
}

function render(accounts) {
  const body = listingBody('accounts', accounts.length);
  for (const account of accounts) {
    body.append(
      h(
        'tr',
        { 'data-id': account.id },
        h('th', { scope: 'row', text: account.email }),
        h('td', { text: account.aliases.length > 0 ? account.aliases.join(', ') : '—' }),
        h('td', { text: account.primary ? 'Yes' : 'No' }),
        h('td', { text: account.active ? 'Yes' : 'No' }),
      ),
    );
  }
}

/** "a@x, b@x ," → ["a@x", "b@x"]: what the API's aliases field takes. */
function aliasesOf(text) {
  return text
    .split(',')
    .map((alias) => alias.trim())
    .filter((alias) => alias !== '');
}

export function wireAccountForm() {
  const form = byId('account-form');
  const email = byId('account-email');
  const aliases = byId('account-aliases');
  const primary = byId('account-primary');
  const error = byId('account-form-error');
  const submit = byId('account-submit');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { email: email.value.trim(), aliases: aliasesOf(aliases.value), primary: primary.checked };
    submit.disabled = true;
    try {
      const response = await api('POST', '/admin/accounts', body);
      if (response.status !== 201) {
        setError(error, `The account was not connected: ${describeFailure(response)}`);
        email.focus();
        return;
      }
      setError(error, '');
      form.reset();
      announce(`Account ${response.json.email} connected.`);
      await loadAccounts();
    } catch (failure) {
      if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server. Nothing was changed; try again.');
    } finally {
      submit.disabled = false;
    }
  });
}
