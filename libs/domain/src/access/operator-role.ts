import type { OperatorRole } from '@wts/contracts';

/** The roles, lowest first: each can do everything the ones before it can. */
export const OPERATOR_ROLES: readonly OperatorRole[] = ['viewer', 'operator', 'admin'];

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);
}

/** Whether a holder of `held` may do what needs `needed`. */
export function roleAllows(held: OperatorRole | undefined, needed: OperatorRole): boolean {
  return held !== undefined && OPERATOR_ROLES.indexOf(held) >= OPERATOR_ROLES.indexOf(needed);
}

/**
 * The highest role named in a token's roles claim: an array of strings, or one string of
 * space- or comma-separated names (providers differ). Names it does not know are ignored, so an
 * organisation's other roles never grant anything here; undefined when none is a role of ours.
 */
export function highestRole(claim: unknown): OperatorRole | undefined {
  const names = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/[\s,]+/) : [];
  let best: OperatorRole | undefined;
  for (const name of names) {
    if (isOperatorRole(name) && !roleAllows(best, name)) best = name;
  }
  return best;
}
