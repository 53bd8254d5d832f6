// "New routine" on the routine list: name, instructions, mode, tools and account scope, sent to the
// admin API's POST /admin/routines (its validation and messages, shown as the API words them);
// once created, its Config page opens.
import { announce, byId, clear, h, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';

let nextTool = 0;

/** One tool row: its name and whether it sends externally, with a button to remove it. */
function toolRow() {
  const n = nextTool++;
  const row = h(
    'div',
    { class: 'tool-row', role: 'group', 'aria-label': `Tool ${n + 1}` },
    h('label', { for: `tool-name-${n}`, text: 'Tool name' }),
    h('input', { id: `tool-name-${n}`, type: 'text', maxlength: 200, autocomplete: 'off', class: 'tool-name' }),
    h(
      'span',
      { class: 'tool-external' },
      h('input', { id: `tool-external-${n}`, type: 'checkbox', class: 'tool-sends' }),
      h('label', { for: `tool-external-${n}`, text: 'Sends externally' }),
    ),
    h('button', {
      type: 'button',
      class: 'link-button',
      text: 'Remove',
      'aria-label': `Remove tool ${n + 1}`,
      onclick: () => removeTool(row),
    }),
  );
  return row;
}

function removeTool(row) {
  row.remove();
  updateToolsEmpty();
  byId('add-tool').focus();
}

function updateToolsEmpty() {
  show(byId('tools-empty'), byId('tools-list').children.length === 0);
}

/** The scope choices: one checkbox per active account, keeping what was ticked. */
function renderScope(accounts) {
  const list = byId('scope-list');
  const ticked = new Set([...list.querySelectorAll('input:checked')].map((input) => input.value));
  clear(list);
  const active = accounts.filter((account) => account.active);
  for (const account of active) {
    const id = `scope-${account.id}`;
    const input = h('input', { id, type: 'checkbox', value: account.id });
    input.checked = ticked.has(account.id) || active.length === 1;
    list.append(h('div', { class: 'field checkbox' }, input, h('label', { for: id, text: account.email })));
  }
  show(byId('scope-empty'), active.length === 0);
}

function formValue() {
  return {
    name: byId('routine-name').value.trim(),
    instructions: byId('routine-instructions').value,
    mode: byId('routine-mode').value,
    tools: [...byId('tools-list').querySelectorAll('.tool-row')].map((row) => ({
      name: row.querySelector('.tool-name').value.trim(),
      sends_externally: row.querySelector('.tool-sends').checked,
    })),
    account_scope: [...byId('scope-list').querySelectorAll('input:checked')].map((input) => input.value),
  };
}

export function wireRoutineForm(onAccounts) {
  onAccounts(renderScope);
  byId('add-tool').addEventListener('click', () => {
    const row = toolRow();
    byId('tools-list').append(row);
    updateToolsEmpty();
    row.querySelector('input').focus();
  });
  const form = byId('routine-form');
  const error = byId('routine-form-error');
  const submit = byId('routine-submit');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const response = await api('POST', '/admin/routines', formValue());
      if (response.status !== 201) {
        setError(error, `The routine was not created: ${describeFailure(response)}`);
        error.scrollIntoView({ block: 'nearest' });
        return;
      }
      setError(error, '');
      announce(`Routine ${response.json.name} created: opening its Config page.`);
      window.location.assign(`/ui/routines/${encodeURIComponent(response.json.id)}/config`);
    } catch (failure) {
      if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server. Nothing was created; try again.');
    } finally {
      submit.disabled = false;
    }
  });
}
