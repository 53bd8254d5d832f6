import { HOURLY_RETENTION_MS, hourOf, type HourlyCount } from '@wts/read-models';

/**
 * Hourly counts held between two activity batches: one entry per (webhook, hour, outcome), however
 * many deliveries or refusals it counts, so a batch writes one upsert per key. At most `maxKeys`
 * keys are held (a database that stays unreachable, or a flood of distinct hours): an increment
 * that would need another key is dropped and counted as such.
 */
export class HourlyActivityTally {
  private held = new Map<string, { readonly webhookId: string; readonly hour: string; readonly outcome: string; count: number }>();

  constructor(private readonly maxKeys: number) {}

  /** The hours before the newest one in `counts` minus the retention: what a batch deletes. */
  static pruneBefore(counts: readonly HourlyCount[]): string {
    const newest = counts.reduce((max, row) => (row.hour > max ? row.hour : max), counts[0]?.hour ?? '');
    return new Date(new Date(newest).getTime() - HOURLY_RETENTION_MS).toISOString();
  }

  /** Counts one; returns how many were dropped (0 or 1). */
  add(webhookId: string, outcome: string, at: string): number {
    return this.merge({ webhookId, hour: hourOf(at), outcome, count: 1 });
  }

  /** Everything held, and holds nothing any more. */
  takeAll(): HourlyCount[] {
    const rows: HourlyCount[] = [...this.held.values()];
    this.held = new Map();
    return rows;
  }

  /** Holds again counts a write could not take (added to those recorded since); returns the increments dropped. */
  restore(rows: readonly HourlyCount[]): number {
    return rows.reduce((dropped, row) => dropped + this.merge(row), 0);
  }

  private merge(row: HourlyCount): number {
    // Called on the request path for every delivery: a plain key (ids and ISO hours hold no newline) and a count added in place.
    const key = `${row.webhookId}\n${row.hour}\n${row.outcome}`;
    const before = this.held.get(key);
    if (before) {
      before.count += row.count;
      return 0;
    }
    if (this.held.size >= this.maxKeys) return row.count;
    this.held.set(key, { ...row });
    return 0;
  }
}
