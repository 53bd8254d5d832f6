/**
 * Per-webhook counts by hour (the Config page's chart): one row per (webhook, hour start, outcome)
 * holding a count. Outcomes are `accepted`, `filter_error`, `filtered` and `refused:<reason>`, one
 * word each so that a new refusal reason needs no schema change. The ingress adds to them in its
 * activity batches (never on the request path) and deletes hours that have aged out in the same
 * batches, a bounded number of rows at a time: the table holds at most the retained hours × the
 * webhooks × the outcomes seen, whatever the traffic.
 */
export interface HourlyCount {
  readonly webhookId: string;
  /** The hour's start, ISO 8601 in UTC with milliseconds (`2026-11-27T13:00:00.000Z`). */
  readonly hour: string;
  readonly outcome: string;
  readonly count: number;
}

/** Hours older than this behind the newest hour written are deleted (the chart shows 24). */
export const HOURLY_RETENTION_MS = 48 * 3_600_000;

/** Aged-out rows deleted per batch at most: a batch's transaction stays short after a long pause. */
export const HOURLY_PRUNE_LIMIT = 1_000;

const HOUR_MS = 3_600_000;

/** The last hour hourOf made: every delivery of that hour is counted under it without formatting it again. */
let lastHour = { start: Number.NaN, text: '' };

/** The start of the hour `at` falls in (ISO 8601, UTC). RangeError for a time that is not one. */
export function hourOf(at: string | Date): string {
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`not a time: ${String(at)}`);
  const start = ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
  if (start !== lastHour.start) lastHour = { start, text: new Date(start).toISOString() };
  return lastHour.text;
}

/** The hour `hours` after (or before, when negative) the hour `hour`. */
export function addHours(hour: string, hours: number): string {
  return new Date(new Date(hour).getTime() + hours * HOUR_MS).toISOString();
}

/**
 * Validates a batch and sums rows of one key (an upsert may touch a row once per statement), in
 * key order (two writers lock rows in the same order, so they never deadlock). RangeError, before
 * anything is written, for an hour that is not an hour start or a count that is not a positive safe
 * integer.
 */
export function mergedHourlyCounts(counts: readonly HourlyCount[]): HourlyCount[] {
  const merged = new Map<string, HourlyCount>();
  for (const row of counts) {
    if (hourOf(row.hour) !== row.hour) throw new RangeError(`not the start of an hour: ${row.hour}`);
    if (!Number.isSafeInteger(row.count) || row.count < 1) throw new RangeError(`count must be a positive integer, got ${row.count}`);
    const key = JSON.stringify([row.webhookId, row.hour, row.outcome]);
    const before = merged.get(key);
    merged.set(key, before ? { ...before, count: before.count + row.count } : row);
  }
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** A time bound of hourlyCounts / recordHourlyCounts, checked: an hour start. */
export function checkHour(hour: string, name: string): string {
  if (hourOf(hour) !== hour) throw new RangeError(`${name} must be the start of an hour, got ${hour}`);
  return hour;
}

export interface HourlyRecord {
  readonly hour_start: string;
  readonly outcome: string;
  readonly count: number | string | bigint;
}

export function toHourlyCount(webhookId: string, record: HourlyRecord): HourlyCount {
  return { webhookId, hour: record.hour_start, outcome: record.outcome, count: Number(record.count) };
}
