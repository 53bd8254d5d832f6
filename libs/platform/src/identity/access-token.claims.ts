/** The most characters of a display name kept from a token (a claim is the issuer's text, not ours). */
export const MAX_DISPLAY_LENGTH = 200;

/**
 * The value of the roles claim named `name` in a verified token's payload. The name is looked up
 * as it is first, so a namespaced claim with dots in it (Auth0: `https://example.com/roles`) is
 * found; when there is no such claim and the name has dots, it is walked as a path of nested
 * objects (Keycloak: `realm_access.roles`). Undefined when neither finds anything.
 */
export function claimAt(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  if (!name.includes('.')) return undefined;
  let value: unknown = payload;
  for (const step of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/**
 * What people recognise the holder by: `email`, else `preferred_username`, else `name` (the first
 * that is a non-blank string), else the subject; at most MAX_DISPLAY_LENGTH characters.
 */
export function displayOf(payload: Readonly<Record<string, unknown>>, subject: string): string {
  for (const claim of ['email', 'preferred_username', 'name']) {
    const value = payload[claim];
    if (typeof value === 'string' && value.trim() !== '') return truncate(value.trim());
  }
  return truncate(subject);
}

function truncate(text: string): string {
  // By code points, so a character outside the BMP is never cut in half.
  const characters = Array.from(text);
  return characters.length > MAX_DISPLAY_LENGTH ? characters.slice(0, MAX_DISPLAY_LENGTH).join('') : text;
}
