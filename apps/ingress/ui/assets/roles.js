// Who is signed in (GET /admin/me) and what their role lets the page offer. The server decides
// (every admin route checks the role); the page only hides what would be refused, and says why in
// place: "Rotating … needs the operator role; you are a viewer."
import { show } from './dom.js';

const ROLES = ['viewer', 'operator', 'admin'];
const ARTICLE = { viewer: 'a viewer', operator: 'an operator', admin: 'an admin' };

/** `{actor: {kind, subject, display}, role, roles: {viewer, operator, admin}}`, or null. */
let operator = null;

export function setOperator(who) {
  operator = who;
}

export function currentOperator() {
  return operator;
}

/** Whether the signed-in operator holds `role` (or one above it). */
export function may(role) {
  return operator?.roles?.[role] === true;
}

/** "a viewer", "an admin", or "signed in without a role". */
export function heldRole() {
  const role = operator?.role;
  return ROLES.includes(role) ? ARTICLE[role] : 'signed in without a role';
}

/** Who this is, as a person reads it: an email, `API key "ci"`, `the bootstrap token`. */
export function actorText(actor) {
  if (!actor) return 'someone not identified';
  if (actor.kind === 'api_key') return `API key "${actor.display}"`;
  if (actor.kind === 'bootstrap') return 'the bootstrap token';
  return actor.display || actor.subject;
}

/** "Rotating the secret needs the operator role; you are a viewer." */
export function roleNote(role, what) {
  const you = operator?.role ? `you are ${heldRole()}` : 'you are signed in without a role';
  return `${what} needs the ${role} role; ${you}.`;
}

/**
 * Shows `controls` when the operator holds `role`; otherwise hides them and puts the reason in
 * `note`. Returns whether the role is held.
 */
export function gate(role, { controls, note, what }) {
  const allowed = may(role);
  for (const control of controls) show(control, allowed);
  note.textContent = allowed ? '' : roleNote(role, what);
  show(note, !allowed);
  return allowed;
}
