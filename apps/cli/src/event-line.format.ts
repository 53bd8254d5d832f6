import type { PayloadLookup } from '@wts/application';
import { upcastEvent } from '@wts/contracts';
import { formatPosition, type RecordedEvent } from '@wts/event-store';

/**
 * Fields holding untrusted input: a delivery's payload as events written before payloads were kept
 * apart carried it (today's events hold none: `show delivery` reads it from the store).
 */
const UNTRUSTED_FIELDS: ReadonlySet<string> = new Set(['payload', 'legacyPayload']);
/** Service-written but long, and it embeds the payload: summarised, never printed in a line (runs written before messages were framed on read). */
const SUMMARISED_FIELDS: ReadonlySet<string> = new Set(['initialMessage', 'legacyInitialMessage']);
const DIGEST_FIELD = /digest$/i;
/** Defence in depth: events carry digests only, but a field that looks secret is never printed. */
const SECRET_FIELD = /secret|token|password|passwd|authorization|api[-_]?key|credential|cookie/i;

export const DEFAULT_DATA_CHARS = 200;

/**
 * One line per event: `position stream type event-id {compact data}`, then, when the event holds
 * a payload or one read from the store is given, `untrusted payload (json|text, N chars): …` (or
 * `payload expired|erased at …`). Data and payload are truncated to
 * `maxChars` each; digests are shortened; anything terminal-unsafe is escaped.
 */
export function formatEventLine(stored: RecordedEvent, maxChars = DEFAULT_DATA_CHARS, payload?: PayloadLookup): string {
  const event = upcastEvent(stored); // an event written by an older build, in today's shape
  const data = isObject(event.data) ? event.data : { value: event.data };
  const untrusted: string[] = [];
  const compact = JSON.stringify(data, (key, value: unknown) => {
    if (key === '') return value;
    if (UNTRUSTED_FIELDS.has(key)) {
      untrusted.push(`untrusted ${key} ${describeUntrusted(value, maxChars)}`);
      return '<untrusted: see below>';
    }
    // A signing secret's ciphertext is never printed: only the key it is sealed under.
    if (key === 'sealed') return isObject(value) && typeof value.keyId === 'string' ? `<sealed under ${value.keyId}>` : '<sealed>';
    if (SUMMARISED_FIELDS.has(key) && typeof value === 'string') return `<${value.length} chars, framed; see "show run">`;
    if (typeof value === 'string' && DIGEST_FIELD.test(key)) return `${value.slice(0, 12)}…`;
    if (SECRET_FIELD.test(key) && !DIGEST_FIELD.test(key)) return '<redacted>';
    return value;
  });
  // A delivery's payload is kept apart from its event: read from the store by the caller.
  if (payload?.state === 'kept') untrusted.push(`untrusted payload ${describeUntrusted(payload.payload, maxChars)}`);
  else if (payload) untrusted.push(`payload ${payload.state} at ${payload.removedAt.toISOString()}`);
  const parts = [formatPosition(event.position), event.streamId, event.type, event.id, truncate(compact ?? 'null', maxChars), ...untrusted];
  return terminalSafe(parts.join(' '));
}

function describeUntrusted(value: unknown, maxChars: number): string {
  if (isObject(value) && value.format === 'json' && typeof value.json === 'string') {
    return `(json, ${value.json.length} chars): ${truncate(value.json, maxChars)}`;
  }
  if (isObject(value) && value.format === 'text' && typeof value.text === 'string') {
    return `(text, ${value.text.length} chars): ${truncate(JSON.stringify(value.text), maxChars)}`;
  }
  return `(${typeof value}): ${truncate(JSON.stringify(value) ?? 'undefined', maxChars)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** At most `max` characters (never splitting a surrogate pair), `…(+N)` when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…(+${text.length - cut.length})`;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Control characters (C0, DEL, C1: terminal escape sequences), line separators and bidi
 * overrides become visible escapes, so untrusted text can neither drive the terminal nor forge
 * or reorder lines.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Pretty JSON that stays valid JSON but cannot drive a terminal (C1 and bidi characters escaped). */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
