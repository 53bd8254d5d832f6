import type { GlobalPosition } from '@wts/event-store';
import { InvalidCursorError } from './read-model.port';

/**
 * Cursors are opaque to callers but are only a place in an order: deliveries, runs and parked
 * rows continue strictly after a global position, attempts strictly after an id, audit entries
 * strictly after an (at, entry id) pair, erasure candidates after a (received at, delivery id)
 * pair. The decoded form carries a kind prefix ("p." / "a." / the JSON array's "e" or "k") so
 * that one kind's cursor given to another is refused instead of silently meaning something else,
 * and it is matched in full (canonical base64url, canonical decimals, int64 range, canonical
 * JSON) so that a tampered cursor is a 400, never a query.
 */

const INT64_MAX = 9_223_372_036_854_775_807n;

/** Above every real position: the first page continues "after" it. */
export const ABOVE_EVERY_POSITION: GlobalPosition = { commit: INT64_MAX, prepare: INT64_MAX };
/** Above every real attempt id. */
export const ABOVE_EVERY_ATTEMPT_ID = INT64_MAX;

const DECIMAL = '(0|[1-9][0-9]{0,18})';
const POSITION_FORM = new RegExp(`^p\\.${DECIMAL}\\.${DECIMAL}$`);
const ATTEMPT_FORM = new RegExp(`^a\\.${DECIMAL}$`);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Position and attempt cursors are short; an audit cursor carries a timestamp and an entry id. */
const MAX_CURSOR_LENGTH = 128;
const MAX_AUDIT_CURSOR_LENGTH = 1024;

/** A place in the audit trail's order (at DESC, entry id DESC). */
export interface AuditPlace {
  readonly at: string;
  readonly entryId: string;
}

export function encodePositionCursor(position: GlobalPosition): string {
  return encode(`p.${position.commit}.${position.prepare}`);
}

export function decodePositionCursor(cursor: string | undefined): GlobalPosition {
  if (cursor === undefined) return ABOVE_EVERY_POSITION;
  const match = POSITION_FORM.exec(decode(cursor));
  if (!match) throw new InvalidCursorError(cursor);
  return { commit: int64(match[1], cursor), prepare: int64(match[2], cursor) };
}

export function encodeAttemptCursor(id: bigint): string {
  return encode(`a.${id}`);
}

export function decodeAttemptCursor(cursor: string | undefined): bigint {
  if (cursor === undefined) return ABOVE_EVERY_ATTEMPT_ID;
  const match = ATTEMPT_FORM.exec(decode(cursor));
  if (!match) throw new InvalidCursorError(cursor);
  return int64(match[1], cursor);
}

export function encodeAuditCursor(place: AuditPlace): string {
  return encode(JSON.stringify(['e', place.at, place.entryId]));
}

/** Undefined: the first page (no place to continue after). */
export function decodeAuditCursor(cursor: string | undefined): AuditPlace | undefined {
  if (cursor === undefined) return undefined;
  const [at, entryId] = decodeTagged(cursor, 'e');
  return { at, entryId };
}

/** A place in the erasure candidates' order (received_at, delivery_id: ascending). */
export interface CandidatePlace {
  readonly receivedAt: string;
  readonly deliveryId: string;
}

export function encodeCandidateCursor(place: CandidatePlace): string {
  return encode(JSON.stringify(['k', place.receivedAt, place.deliveryId]));
}

export function decodeCandidateCursor(cursor: string | null): CandidatePlace | undefined {
  if (cursor === null) return undefined;
  const [receivedAt, deliveryId] = decodeTagged(cursor, 'k');
  return { receivedAt, deliveryId };
}

/** A JSON array [tag, string, string], exactly as encoded. */
function decodeTagged(cursor: string, tag: string): [string, string] {
  const text = decode(cursor, MAX_AUDIT_CURSOR_LENGTH);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidCursorError(cursor);
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== tag) throw new InvalidCursorError(cursor);
  const [, first, second] = parsed as unknown[];
  if (typeof first !== 'string' || typeof second !== 'string' || JSON.stringify([tag, first, second]) !== text) {
    throw new InvalidCursorError(cursor);
  }
  return [first, second];
}

function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Only the exact encoding this module issues decodes (Buffer's decoder skips junk silently). */
function decode(cursor: string, maxLength = MAX_CURSOR_LENGTH): string {
  if (typeof cursor !== 'string' || cursor.length > maxLength || !BASE64URL.test(cursor)) throw new InvalidCursorError(String(cursor));
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (encode(text) !== cursor) throw new InvalidCursorError(cursor);
  return text;
}

function int64(digits: string | undefined, cursor: string): bigint {
  const value = BigInt(digits ?? '');
  if (value > INT64_MAX) throw new InvalidCursorError(cursor);
  return value;
}
