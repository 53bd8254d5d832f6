import { addHours, hourOf, type HourlyCount } from '@wts/read-models';

/** Hours in the Config page's chart: the current one and the 23 before it. */
export const HOURS_SHOWN = 24;

/** One hour of a webhook's activity, as the admin API answers it. */
export interface HourlyActivityItem {
  /** The hour's start (ISO 8601, UTC). */
  readonly hour: string;
  readonly accepted: number;
  readonly filtered: number;
  /** Accepted though the filter failed to evaluate (fail open): not in `accepted`, never in `refused`. */
  readonly filter_errors: number;
  /** Refused attempts by reason (`wrong_secret`, `payload_schema_mismatch`, …); reasons with none are left out. */
  readonly refused: Readonly<Record<string, number>>;
}

/** The hours `[from, to)` of the chart ending with the hour of `now`. */
export function chartRange(now: Date): { readonly from: string; readonly to: string } {
  const current = hourOf(now);
  return { from: addHours(current, 1 - HOURS_SHOWN), to: addHours(current, 1) };
}

/**
 * Exactly HOURS_SHOWN hours, oldest first, ending with the hour of `now`: an hour nothing happened
 * in is all zeros (a chart needs every bar, not only the rows the database holds).
 */
export function hourlyActivity(counts: readonly HourlyCount[], now: Date): HourlyActivityItem[] {
  const { from } = chartRange(now);
  const hours = Array.from({ length: HOURS_SHOWN }, (_, n) => ({
    hour: addHours(from, n),
    accepted: 0,
    filtered: 0,
    filter_errors: 0,
    refused: {} as Record<string, number>,
  }));
  const byHour = new Map(hours.map((item) => [item.hour, item]));
  for (const { hour, outcome, count } of counts) {
    const item = byHour.get(hour);
    if (!item) continue;
    if (outcome === 'accepted') item.accepted += count;
    else if (outcome === 'filtered') item.filtered += count;
    else if (outcome === 'filter_error') item.filter_errors += count;
    else if (outcome.startsWith('refused:')) {
      const reason = outcome.slice('refused:'.length);
      item.refused[reason] = (item.refused[reason] ?? 0) + count;
    }
  }
  return hours;
}
