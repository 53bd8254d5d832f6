import { encodeAttemptCursor, encodeAuditCursor, encodePositionCursor } from './cursor';
import type { AttemptRow, AuditRow, Page, PageRequest } from './read-model.port';
import { positionOf, toAttemptRow, toAuditRow, type AttemptRecord, type AuditRecord, type Positioned } from './read-model.rows';

/** The port's bounds: a page is one index range scan of at most 1000 rows (plus one look-ahead). */
export const MAX_PAGE_LIMIT = 1000;

export function checkLimit(page: PageRequest): number {
  const { limit } = page;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new RangeError(`page limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${String(limit)}`);
  }
  return limit;
}

export function checkKeepPerWebhook(keep: number): number {
  return checkKeep(keep, 'keepPerWebhook');
}

/** A count of rows to keep: a non-negative safe integer, else RangeError naming `name`. */
export function checkKeep(keep: number, name: string): number {
  if (!Number.isSafeInteger(keep) || keep < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(keep)}`);
  }
  return keep;
}

/**
 * `records` were fetched with `limit + 1`: the extra one only says that another page exists, so
 * the cursor points at the last item returned, and the next page starts strictly after it.
 */
function toPage<R, T>(records: readonly R[], limit: number, toItem: (record: R) => T, cursorOf: (record: R) => string): Page<T> {
  const items = records.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(toItem),
    nextCursor: records.length > limit && last !== undefined ? cursorOf(last) : null,
  };
}

/** A page of deliveries, runs or parked rows: the next one continues after the last row's position. */
export function toPositionPage<R extends Positioned, T>(records: readonly R[], limit: number, toItem: (record: R) => T): Page<T> {
  return toPage(records, limit, toItem, (record) => encodePositionCursor(positionOf(record)));
}

/** A page of rejected attempts: the next one continues after the last attempt's id. */
export function toAttemptPage(records: readonly AttemptRecord[], limit: number): Page<AttemptRow> {
  return toPage(records, limit, toAttemptRow, (record) => encodeAttemptCursor(BigInt(record.id)));
}

/** A page of the audit trail: the next one continues after the last entry's (at, entry id). */
export function toAuditPage(records: readonly AuditRecord[], limit: number): Page<AuditRow> {
  return toPage(records, limit, toAuditRow, (record) => encodeAuditCursor({ at: record.at, entryId: record.entry_id }));
}
