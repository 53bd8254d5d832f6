import type Database from 'better-sqlite3';
import type { PayloadRemovalReason } from '../payload-store.port';
import { lastRowExpiringBy, payloadBucketOf, payloadTable } from './sqlite-payload.records';
import { StatementCache } from './sqlite-statement.cache';

/**
 * The row of the payload stored under the key bound here, kept or removed: its event is in the
 * stream `<category><key>` of a category that carries payloads (found through the events' own
 * (stream_id, revision) index, one probe per such category).
 */
export const PAYLOAD_OF_KEY = `SELECT e.payload_row FROM payload_categories c JOIN events e ON e.stream_id = c.category || ?
  WHERE e.payload_row IS NOT NULL`;
/** The row of the payload kept under the key bound here. */
export const KEPT_ROW_OF_KEY = `${PAYLOAD_OF_KEY} AND NOT EXISTS (SELECT 1 FROM payload_removals r WHERE r.row_id = e.payload_row)`;

/** The standing buckets up to the bucket bound here, in order, each with its sweep frontier. */
export const STANDING_BUCKETS_UP_TO =
  'SELECT bucket, swept_to FROM payload_buckets WHERE dropped_at IS NULL AND bucket <= ? ORDER BY bucket';

/** A standing bucket: every row of its table up to swept_to is removed. */
export interface StandingBucket {
  readonly bucket: bigint;
  readonly swept_to: bigint;
}

/** A key's payload row, with its removal when it has one. */
export interface PayloadRef {
  readonly key: string;
  readonly row_id: bigint;
  readonly removed_at: bigint | null;
  readonly reason: PayloadRemovalReason | null;
  readonly erasure_id: string | null;
}

export interface KeptBody {
  readonly format: 'json' | 'text';
  readonly receivedAt: number;
  readonly body: Buffer;
}

/** A scan window in one bucket: how many kept payloads it holds, and the row of the last (null: none). */
export interface ScanWindow {
  readonly kept: number;
  readonly lastRowId: bigint | null;
}

/** Bucket tables whose read statements stay prepared. */
const CACHED_TABLES = 32;

/**
 * The main thread's payload SQL: point lookups, the due list, and the scan's windows. Keys and row
 * ids are bound as one JSON array walked by json_each (like streamHeads): one statement whatever
 * the batch size. Callers run several of these in one read transaction (snapshot) so a row and
 * its removal record always agree. The handle must have defaultSafeIntegers(true).
 */
export class SqlitePayloadReads {
  private readonly refsStmt;
  private readonly standingStmt;
  private readonly nextBucketStmt;
  private readonly snapshotTx;
  private readonly tableStmts = new StatementCache<Database.Statement<unknown[], unknown>>(CACHED_TABLES * 3);

  constructor(private readonly db: Database.Database) {
    this.refsStmt = db.prepare<[string], PayloadRef>(
      `SELECT k.value AS key, e.payload_row AS row_id, r.removed_at, r.reason, r.erasure_id
       FROM json_each(?) k JOIN payload_categories c JOIN events e ON e.stream_id = c.category || k.value
       LEFT JOIN payload_removals r ON r.row_id = e.payload_row
       WHERE e.payload_row IS NOT NULL`,
    );
    this.standingStmt = db.prepare<[number], StandingBucket>(STANDING_BUCKETS_UP_TO);
    this.nextBucketStmt = db
      .prepare<[bigint], bigint | null>('SELECT min(bucket) FROM payload_buckets WHERE dropped_at IS NULL AND bucket > ?')
      .pluck();
    this.snapshotTx = db.transaction((work: () => void) => work());
  }

  /** Runs `work` in one read transaction: every statement in it sees the same committed state. */
  snapshot<T>(work: () => T): T {
    let result: { value: T } | undefined;
    this.snapshotTx(() => {
      result = { value: work() };
    });
    if (!result) throw new Error('payload read transaction did not run');
    return result.value;
  }

  refs(keys: readonly string[]): PayloadRef[] {
    return this.refsStmt.all(JSON.stringify(keys));
  }

  /** The keys of kept payloads expiring by `now`, in expiry order, at most `limit`: each bucket read from its sweep frontier on. */
  due(now: number, limit: number): string[] {
    const keys: string[] = [];
    const last = lastRowExpiringBy(now);
    for (const { bucket, swept_to: sweptTo } of this.standingStmt.all(payloadBucketOf(now))) {
      const table = payloadTable(bucket);
      const sql = `SELECT key FROM ${table} WHERE row_id > ? AND row_id <= ? AND removed = 0 ORDER BY row_id LIMIT ?`;
      keys.push(
        ...(this.table(table, 'due', sql)
          .pluck()
          .all(sweptTo, last, limit - keys.length) as string[]),
      );
      if (keys.length >= limit) break;
    }
    return keys;
  }

  /** The next `limit` kept payloads of a bucket after `afterRowId`: how many, and the row of the last (null: none). */
  window(bucket: bigint, afterRowId: bigint, limit: number): ScanWindow {
    const table = payloadTable(bucket);
    // Counted in SQL, not listed: the window's keys are only needed for the few rows that match.
    const sql = `SELECT count(*), max(row_id) FROM (SELECT row_id FROM ${table} WHERE row_id > ? AND removed = 0 ORDER BY row_id LIMIT ?)`;
    const [kept, lastRowId] = (this.table(table, 'window', sql).raw().get(afterRowId, limit) as [bigint, bigint | null] | undefined) ?? [
      0n,
      null,
    ];
    return { kept: Number(kept), lastRowId };
  }

  /**
   * The keys of the kept rows from `first` to `last` whose body holds `needle` (ASCII, lower case),
   * compared with ASCII-only case folding: SQLite's lower() folds A–Z and leaves every other byte
   * as it is.
   */
  matching(bucket: bigint, first: bigint, last: bigint, needle: string): string[] {
    const table = payloadTable(bucket);
    const sql = `SELECT key FROM ${table} WHERE row_id BETWEEN ? AND ? AND removed = 0 AND instr(lower(CAST(body AS TEXT)), ?) > 0`;
    return this.table(table, 'matching', sql).pluck().all(first, last, needle) as string[];
  }

  /**
   * Like matching(), with each body decoded and lower-cased by JavaScript: the fallback for what
   * lower() cannot fold. One body in memory at a time, not a window's.
   */
  matchingInJs(bucket: bigint, first: bigint, last: bigint, needle: string): string[] {
    const table = payloadTable(bucket);
    const sql = `SELECT key, body FROM ${table} WHERE row_id BETWEEN ? AND ? AND removed = 0`;
    const keys: string[] = [];
    for (const [key, body] of this.table(table, 'range', sql).raw().iterate(first, last) as IterableIterator<[string, Buffer]>) {
      if (body.toString('utf8').toLowerCase().includes(needle)) keys.push(key);
    }
    return keys;
  }

  /** The first standing bucket after `bucket` (null: none). */
  nextBucket(bucket: bigint): bigint | null {
    return this.nextBucketStmt.get(bucket) ?? null;
  }

  /** The kept bodies of these rows of a bucket table, by row id. */
  bodies(bucket: number, rowIds: readonly bigint[]): Map<bigint, KeptBody> {
    const table = payloadTable(bucket);
    const sql = `SELECT row_id, format, received_at, body FROM ${table}
      WHERE row_id IN (SELECT value FROM json_each(?)) AND removed = 0`;
    // Written out, not JSON.stringify: row ids are past 2^53, and json_each reads them as 64-bit integers.
    const rows = this.table(table, 'bodies', sql)
      .raw()
      .all(`[${rowIds.join(',')}]`) as [bigint, bigint, bigint, Buffer][];
    return new Map(
      rows.map(([rowId, format, receivedAt, body]) => [
        rowId,
        { format: format === 0n ? 'json' : 'text', receivedAt: Number(receivedAt), body },
      ]),
    );
  }

  private table(table: string, role: string, sql: string): Database.Statement<unknown[], unknown> {
    return this.tableStmts.get(`${table}:${role}`, () => this.db.prepare(sql));
  }
}
