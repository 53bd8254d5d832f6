import type { Page, PageRequest } from './read-model.port';

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
  if (!Number.isSafeInteger(keep) || keep < 0) {
    throw new RangeError(`keepPerWebhook must be a non-negative integer, got ${String(keep)}`);
  }
  return keep;
}

/**
 * `records` were fetched with `limit + 1`: the extra one only says that another page exists, so
 * the cursor points at the last item returned, and the next page starts strictly after it.
 */
export function toPage<R, T>(records: readonly R[], limit: number, toItem: (record: R) => T, cursorOf: (record: R) => string): Page<T> {
  const items = records.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(toItem),
    nextCursor: records.length > limit && last !== undefined ? cursorOf(last) : null,
  };
}
