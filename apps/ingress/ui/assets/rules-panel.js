// The Config page's "Routine rules" section: the webhook's filter (a CEL expression deciding
// whether a delivery makes a run) and its payload schema (a JSON Schema a JSON payload must
// conform to, or it is refused 400). Both are edited here and tried on a sample (rules-try.js)
// before they are saved, so a rule that would filter everything is seen before a sender meets it.
// The edits stay in the textareas until saved: the webhook view is rendered again every few seconds
// while a hold is watched, and a refill then would throw away what is being typed, so the
// textareas are refilled only when the saved rules themselves change.
// Saving needs the operator role: below it the rules are shown read-only and the section says why.
import { announce, byId, h, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { may, roleNote } from './roles.js';
import { loadAudit } from './audit-trail.js';
import { renderRulesTry, rulesTryPanel, wireRulesTry } from './rules-try.js';

/** The filter's longest source the server takes (FILTER_LIMITS.maxSourceLength). */
const FILTER_MAX_LENGTH = 2048;
const FILTER_EXAMPLE = 'body.action == "opened" && !body.pull_request.draft';

/** The saved rules the textareas were last filled from, as their texts (null: never filled). */
let filledFrom = null;

/** A saved schema as the textarea shows it: pretty-printed JSON, or '' for none. */
function schemaText(schema) {
  return schema === null || schema === undefined ? '' : JSON.stringify(schema, null, 2);
}

function textarea(id, rows, describedBy) {
  const element = h('textarea', { id, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': describedBy });
  element.rows = rows;
  return element;
}

/** A field's help paragraph (the field's aria-describedby names `id`). */
function help(id, ...parts) {
  return h('p', { id, class: 'help' }, ...parts);
}

function build() {
  const filterHelp = help(
    'rules-filter-help',
    'A CEL expression over ',
    h('code', { text: 'event_type' }),
    ' (the sender\'s event name, or ""), ',
    h('code', { text: 'headers' }),
    ' (lower-case names) and ',
    h('code', { text: 'body' }),
    ' (the payload as JSON, or a string for text). A delivery for which it is false gets 200 "filtered" and makes no run; ' +
      'one it cannot evaluate runs anyway. Example: ',
    h('code', { text: FILTER_EXAMPLE }),
    '. Empty: no filter.',
  );
  const schemaHelp = help(
    'rules-schema-help',
    'A JSON Schema (2020-12) a JSON payload must conform to: one that does not is refused with 400 ',
    h('code', { text: 'payload_schema_mismatch' }),
    ' and makes no run. Text payloads are not checked. Empty: no schema.',
  );
  const filter = textarea('rules-filter', 3, 'rules-filter-help rules-filter-error');
  filter.maxLength = FILTER_MAX_LENGTH;
  return h(
    'section',
    { id: 'rules', class: 'panel', 'aria-labelledby': 'rules-title' },
    h('h2', { id: 'rules-title', text: 'Routine rules' }),
    h('p', { text: 'Which deliveries make a run. Try the rules on a sample below before saving them.' }),
    h('p', { id: 'rules-unavailable', text: 'Set up the webhook to give it rules.' }),
    h(
      'div',
      { id: 'rules-body' },
      h('p', { id: 'rules-role-note', class: 'role-note' }),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'rules-filter', text: 'Filter (CEL expression)' }),
        filter,
        filterHelp,
        h('p', { id: 'rules-filter-error', class: 'error', role: 'alert' }),
        h('button', { type: 'button', id: 'rules-remove-filter', class: 'danger', text: 'Remove filter' }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'rules-schema', text: 'Payload schema (JSON Schema)' }),
        textarea('rules-schema', 8, 'rules-schema-help rules-schema-error'),
        schemaHelp,
        h('p', { id: 'rules-schema-error', class: 'error', role: 'alert' }),
        h('button', { type: 'button', id: 'rules-remove-schema', class: 'danger', text: 'Remove payload schema' }),
      ),
      h(
        'div',
        { id: 'rules-save-actions', class: 'actions' },
        h('button', { type: 'button', id: 'rules-save', class: 'primary', text: 'Save rules' }),
      ),
      h('p', { id: 'rules-error', class: 'error', role: 'alert' }),
      rulesTryPanel(),
    ),
  );
}

/** The rules section, from `loaded.webhook` (the edits kept unless the saved rules changed). */
export function renderRules() {
  const webhook = loaded.webhook;
  const configured = webhook.state !== 'not_configured';
  show(byId('rules-unavailable'), !configured);
  show(byId('rules-body'), configured);
  const saved = { filter: webhook.filter ?? '', schema: schemaText(webhook.payload_schema) };
  if (filledFrom === null || filledFrom.filter !== saved.filter || filledFrom.schema !== saved.schema) {
    byId('rules-filter').value = saved.filter;
    byId('rules-schema').value = saved.schema;
    filledFrom = saved;
  }
  const operates = may('operator');
  byId('rules-filter').readOnly = !operates;
  byId('rules-schema').readOnly = !operates;
  show(byId('rules-save-actions'), operates);
  show(byId('rules-remove-filter'), operates && saved.filter !== '');
  show(byId('rules-remove-schema'), operates && saved.schema !== '');
  const note = byId('rules-role-note');
  note.textContent = operates ? '' : roleNote('operator', 'Changing or trying the rules');
  show(note, !operates);
  renderRulesTry(configured && operates);
}

/** Shows (or clears, with '') what is wrong with one field, on the field too. */
function setFieldProblem(field, message) {
  setError(byId(`${field}-error`), message);
  if (message) byId(field).setAttribute('aria-invalid', 'true');
  else byId(field).removeAttribute('aria-invalid');
}

/**
 * The rules as typed: `{filter, payload_schema}` (an empty field: null), or `{problem}` when the
 * schema is not JSON — said next to the field, before any request (the server checks the rest).
 */
export function editedRules() {
  const filter = byId('rules-filter').value.trim();
  const schemaSource = byId('rules-schema').value.trim();
  setFieldProblem('rules-filter', '');
  let payloadSchema = null;
  if (schemaSource !== '') {
    try {
      payloadSchema = JSON.parse(schemaSource);
    } catch (failure) {
      const problem = `The payload schema is not valid JSON: ${failure instanceof Error ? failure.message : String(failure)}`;
      setFieldProblem('rules-schema', problem);
      return { problem };
    }
  }
  setFieldProblem('rules-schema', '');
  return { filter: filter === '' ? null : filter, payload_schema: payloadSchema };
}

/** Which field a 400 about the rules is about (its detail goes next to it), or null. */
function fieldOf(answer) {
  if (answer.status !== 400) return null;
  if (answer.json?.code === 'invalid_filter') return 'rules-filter';
  if (answer.json?.code === 'invalid_payload_schema') return 'rules-schema';
  return null;
}

/** PATCHes `change` (some of filter and payload_schema) and shows the answer. */
async function patchRules(change, trigger, done) {
  trigger.disabled = true;
  setError(byId('rules-error'), '');
  try {
    const answer = await api('PATCH', routinePath('/webhook'), change);
    if (!answer.ok) {
      const field = fieldOf(answer);
      if (field !== null) {
        setFieldProblem(field, answer.json.detail ?? describeFailure(answer));
        byId(field).focus();
      } else setError(byId('rules-error'), `Could not save the rules: ${describeFailure(answer)}`);
      return;
    }
    setFieldProblem('rules-filter', '');
    setFieldProblem('rules-schema', '');
    loaded.webhook = answer.json;
    renderRules();
    announce(done);
    void loadAudit();
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(byId('rules-error'), 'Could not reach the server.');
  } finally {
    trigger.disabled = false;
  }
}

function save() {
  const rules = editedRules();
  if (rules.problem) {
    byId('rules-schema').focus();
    return;
  }
  const what = [
    rules.filter === null ? 'no filter' : 'the filter',
    rules.payload_schema === null ? 'no payload schema' : 'the payload schema',
  ];
  void patchRules(rules, byId('rules-save'), `Rules saved: ${what.join(' and ')}. They apply to the next delivery.`);
}

export function wireRulesPanel() {
  byId('webhook').after(build());
  show(byId('rules-body'), false);
  for (const id of ['rules-role-note', 'rules-filter-error', 'rules-schema-error', 'rules-error']) show(byId(id), false);
  byId('rules-save').addEventListener('click', save);
  byId('rules-remove-filter').addEventListener(
    'click',
    (event) => void patchRules({ filter: null }, event.currentTarget, 'Filter removed: every delivery makes a run again.'),
  );
  byId('rules-remove-schema').addEventListener(
    'click',
    (event) => void patchRules({ payload_schema: null }, event.currentTarget, 'Payload schema removed: payloads are no longer checked.'),
  );
  wireRulesTry(editedRules);
}
