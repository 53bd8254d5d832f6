import { isLosslessNumber } from 'lossless-json';

// Reading members of a parsed JSON body (plain or lossless-json): own members only.

/** A member's value when it is a string (own members only: `__proto__` and the like are nobody's). */
export function stringMember(body: Record<string, unknown>, name: string): string | undefined {
  const value = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A member's value when it is an object; an empty one otherwise. */
export function objectMember(body: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  return isPlainObject(value) ? value : {};
}

export function firstOf(value: unknown): Record<string, unknown> {
  return Array.isArray(value) && isPlainObject(value[0]) ? value[0] : {};
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
