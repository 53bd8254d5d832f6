import { HOURLY_PRUNE_LIMIT } from '../hourly-activity';

/** The statements of the hourly counts (hourly-activity.ts). */

/** $1–$4: webhook ids, hours, outcomes, counts, one row per key in key order (mergedHourlyCounts): no deadlock between replicas. */
export const ADD_HOURLY = `
  INSERT INTO rm_hourly_activity (webhook_id, hour_start, outcome, count)
  SELECT webhook_id, hour_start, outcome, count
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS h(webhook_id, hour_start, outcome, count, n)
  ORDER BY n
  ON CONFLICT (webhook_id, hour_start, outcome) DO UPDATE SET count = rm_hourly_activity.count + excluded.count`;

/** Hours before $1, an index range of at most HOURLY_PRUNE_LIMIT rows (a batch after a long pause leaves the rest to later ones). */
export const PRUNE_HOURLY = `
  DELETE FROM rm_hourly_activity WHERE ctid IN (
    SELECT ctid FROM rm_hourly_activity WHERE hour_start < $1 ORDER BY hour_start LIMIT ${HOURLY_PRUNE_LIMIT})`;

export const LIST_HOURLY = `
  SELECT hour_start, outcome, count FROM rm_hourly_activity
  WHERE webhook_id = $1 AND hour_start >= $2 AND hour_start < $3 ORDER BY hour_start, outcome`;
