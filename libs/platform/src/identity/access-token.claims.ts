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

/** What people recognise the holder of a token by, and whether the provider vouches for it. */
export interface TokenDisplay {
  readonly display: string;
  /** True only for an email the provider marked verified (`email_verified: true`) and kept whole. */
  readonly displayVerified: boolean;
}

/**
 * What people recognise the holder by: `email` when the token says it is verified
 * (`email_verified` is the JSON `true`), else `preferred_username`, else the subject (the first
 * that is a non-blank string); at most MAX_DISPLAY_LENGTH characters. `name` is never used: it is
 * free text anyone can set to another person's name at most providers. Only a verified email
 * counts as verified (the audit trail's `?actor=` matches a display only then): an unverified
 * email, a username or a cut-short email is whatever the holder typed, and may be someone else's.
 */
export function displayOf(payload: Readonly<Record<string, unknown>>, subject: string): TokenDisplay {
  const email = nonBlank(payload.email);
  if (email !== undefined && payload.email_verified === true) {
    const display = truncate(email);
    return { display, displayVerified: display === email };
  }
  return { display: truncate(nonBlank(payload.preferred_username) ?? subject), displayVerified: false };
}

function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function truncate(text: string): string {
  // By code points, so a character outside the BMP is never cut in half.
  const characters = Array.from(text);
  return characters.length > MAX_DISPLAY_LENGTH ? characters.slice(0, MAX_DISPLAY_LENGTH).join('') : text;
}
