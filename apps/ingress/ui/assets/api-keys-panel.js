// API keys for automation, on the routine list (admins only): the list, "Issue a key" (name,
// role, optional expiry) showing the key once with a copy button, and Revoke behind a
// confirmation. The key itself is only ever in the answer to the POST that issued it: this page
// keeps it in the read-only field until it is hidden, nowhere else.
import { loadListing, listingBody } from './admin-listing.js';
import { announce, byId, copyText, h, setError, show, timeElement } from './dom.js';
import { API_KEY_STATUS } from './labels.js';
import { confirmAction } from './confirm-dialog.js';
import { SignedOutError, api, describeFailure } from './session.js';

/** Key names by id, for the audit trail's lines. */
const names = new Map();

export function apiKeyName(id) {
  return names.get(id) ?? null;
}

export async function loadApiKeys() {
  await loadListing('api-keys-error', '/admin/api-keys', 'API keys', (json) => render(json.api_keys));
}

function render(keys) {
  const body = listingBody('api-keys', keys.length);
  for (const key of keys) {
    names.set(key.id, key.name);
    const revoke =
      key.status === 'live'
        ? h('button', {
            type: 'button',
            class: 'danger',
            text: 'Revoke…',
            'aria-label': `Revoke API key ${key.name}`,
            onclick: (event) => void revokeKey(key, event.currentTarget),
          })
        : null;
    body.append(
      h(
        'tr',
        { 'data-id': key.id },
        h('th', { scope: 'row', text: key.name }),
        h('td', { text: key.role }),
        h('td', { text: API_KEY_STATUS[key.status] ?? key.status }),
        h('td', {}, timeElement(key.created_at)),
        h('td', {}, key.expires_at ? timeElement(key.expires_at) : 'Never'),
        h('td', {}, revoke),
      ),
    );
  }
}

async function revokeKey(key, trigger) {
  const confirmed = await confirmAction({
    title: `Revoke the API key "${key.name}"?`,
    message: 'Whatever uses this key is refused (401) at once, on every server. A revoked key cannot be used again.',
    confirmLabel: 'Revoke key',
  });
  const error = byId('api-keys-error');
  if (!confirmed) {
    trigger.focus();
    return;
  }
  try {
    const answer = await api('DELETE', `/admin/api-keys/${encodeURIComponent(key.id)}`);
    if (answer.status !== 204) {
      setError(error, `The key was not revoked: ${describeFailure(answer)}`);
      trigger.focus();
      return;
    }
    setError(error, '');
    announce(`API key ${key.name} revoked.`);
    await loadApiKeys();
    byId('api-keys-title').focus();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server. Nothing was changed; try again.');
  }
}

/** The end of the chosen day, local time, as ISO 8601 (what the API's expires_at takes); null when none. */
function expiryOf(dateValue) {
  if (dateValue === '') return null;
  const end = new Date(`${dateValue}T23:59:59`);
  return Number.isNaN(end.getTime()) ? undefined : end.toISOString();
}

function showIssued(issued) {
  byId('issued-key-name').textContent = `${issued.name} (${issued.role})`;
  byId('issued-key-value').value = issued.key;
  show(byId('issued-key'), true);
  byId('issued-key-title').focus();
}

function hideIssued() {
  byId('issued-key-value').value = '';
  byId('issued-key-name').textContent = '';
  show(byId('issued-key'), false);
}

export function wireApiKeysPanel() {
  const form = byId('api-key-form');
  const error = byId('api-key-form-error');
  const submit = byId('api-key-submit');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const expiresAt = expiryOf(byId('api-key-expires').value);
    if (expiresAt === undefined) {
      setError(error, 'Choose a valid expiry date, or leave it empty.');
      return;
    }
    const body = { name: byId('api-key-name').value.trim(), role: byId('api-key-role').value };
    if (expiresAt !== null) body.expires_at = expiresAt;
    submit.disabled = true;
    try {
      const answer = await api('POST', '/admin/api-keys', body);
      if (answer.status !== 201) {
        setError(error, `The key was not issued: ${describeFailure(answer)}`);
        byId('api-key-name').focus();
        return;
      }
      setError(error, '');
      form.reset();
      showIssued(answer.json);
      announce('API key issued. Copy it now: it will not be shown again.');
      await loadApiKeys();
    } catch (failure) {
      if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server. Nothing was issued; try again.');
    } finally {
      submit.disabled = false;
    }
  });
  byId('copy-key').addEventListener('click', () => void copyText(byId('issued-key-value').value, 'API key', byId('issued-key-value')));
  byId('dismiss-key').addEventListener('click', () => {
    hideIssued();
    byId('api-key-name').focus();
  });
}
