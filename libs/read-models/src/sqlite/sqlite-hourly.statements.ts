import type { Statement } from 'better-sqlite3';
import { HOURLY_PRUNE_LIMIT, type HourlyCount, type HourlyRecord } from '../hourly-activity';
import type { SqliteDatabase } from './sqlite-read-model.connection';

/** The statements of the hourly counts (hourly-activity.ts), prepared once per connection. */
export interface SqliteHourlyStatements {
  readonly add: Statement<[{ webhookId: string; hour: string; outcome: string; count: number }]>;
  readonly prune: Statement<[{ before: string; limit: number }]>;
  readonly list: Statement<[{ webhookId: string; from: string; to: string }], HourlyRecord>;
}

export function prepareHourlyStatements(db: SqliteDatabase): SqliteHourlyStatements {
  return {
    add: db.prepare(`
      INSERT INTO rm_hourly_activity (webhook_id, hour_start, outcome, count) VALUES (@webhookId, @hour, @outcome, @count)
      ON CONFLICT (webhook_id, hour_start, outcome) DO UPDATE SET count = count + excluded.count`),
    // An index range of at most `limit` rows: a batch after a long pause deletes the rest later.
    prune: db.prepare(`
      DELETE FROM rm_hourly_activity WHERE rowid IN (
        SELECT rowid FROM rm_hourly_activity WHERE hour_start < @before ORDER BY hour_start LIMIT @limit)`),
    list: db.prepare(`
      SELECT hour_start, outcome, count FROM rm_hourly_activity
      WHERE webhook_id = @webhookId AND hour_start >= @from AND hour_start < @to ORDER BY hour_start, outcome`),
  };
}

/** One batch, inside the caller's transaction: `counts` already merged (mergedHourlyCounts). */
export function writeHourly(q: SqliteHourlyStatements, counts: readonly HourlyCount[], pruneBefore: string): void {
  for (const { webhookId, hour, outcome, count } of counts) q.add.run({ webhookId, hour, outcome, count });
  q.prune.run({ before: pruneBefore, limit: HOURLY_PRUNE_LIMIT });
}
