import type Database from 'better-sqlite3';
import type { PayloadRemovalReason } from '../payload-store.port';
import { payloadTable } from './sqlite-schema.migrations';
import { StatementCache } from './sqlite-statement.cache';

export interface PayloadIndexRow {
  readonly key: string;
  readonly format: 'json' | 'text';
  readonly bucket: bigint;
  readonly row_id: bigint;
  readonly received_at: bigint;
  readonly expires_at: bigint;
  readonly removed_at: bigint | null;
  readonly removed_reason: PayloadRemovalReason | null;
  readonly erasure_id: string | null;
}

/** A scan window in one bucket: how many kept payloads it holds, and the row of the last (null: none). */
export interface ScanWindow {
  readonly kept: number;
  readonly lastRowId: bigint | null;
}

/** Bucket tables whose read statements stay prepared. */
const CACHED_TABLES = 32;
const INDEX_COLUMNS = 'key, format, bucket, row_id, received_at, expires_at, removed_at, removed_reason, erasure_id';

/**
 * The main thread's payload SQL: point lookups, the due list, and the scan's keyset windows.
 * Row ids and keys are bound as one JSON array walked by json_each (like streamHeads): one
 * statement whatever the batch size, each row found through its primary key. Callers run several
 * of these in one read transaction (snapshot) so an index row and its body always agree.
 * The handle must have defaultSafeIntegers(true).
 */
export class SqlitePayloadReads {
  private readonly indexStmt;
  private readonly dueStmt;
  private readonly windowStmt;
  private readonly keptKeysStmt;
  private readonly nextBucketStmt;
  private readonly snapshotTx;
  private readonly tableStmts = new StatementCache<Database.Statement<unknown[], unknown>>(CACHED_TABLES * 2);

  constructor(private readonly db: Database.Database) {
    this.indexStmt = db.prepare<[string], PayloadIndexRow>(
      `SELECT ${INDEX_COLUMNS} FROM payload_index WHERE key IN (SELECT value FROM json_each(?))`,
    );
    this.dueStmt = db
      .prepare<[number, number], string>(
        'SELECT key FROM payload_index WHERE removed_at IS NULL AND expires_at <= ? ORDER BY expires_at, key LIMIT ?',
      )
      .pluck();
    // Counted in SQL, not listed: the window's keys are only needed for the few rows that match.
    this.windowStmt = db
      .prepare<[bigint, bigint, number], [bigint, bigint | null]>(
        `SELECT count(*), max(row_id) FROM (
           SELECT row_id FROM payload_index WHERE removed_at IS NULL AND bucket = ? AND row_id > ? ORDER BY row_id LIMIT ?)`,
      )
      .raw();
    this.keptKeysStmt = db
      .prepare<[bigint, string], [bigint, string]>(
        `SELECT row_id, key FROM payload_index
         WHERE removed_at IS NULL AND bucket = ? AND row_id IN (SELECT value FROM json_each(?)) ORDER BY row_id`,
      )
      .raw();
    this.nextBucketStmt = db
      .prepare<[bigint], bigint | null>('SELECT min(bucket) FROM payload_index WHERE removed_at IS NULL AND bucket > ?')
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

  indexRows(keys: readonly string[]): PayloadIndexRow[] {
    return this.indexStmt.all(JSON.stringify(keys));
  }

  due(now: number, limit: number): string[] {
    return this.dueStmt.all(now, limit);
  }

  /** The next `limit` kept payloads of a bucket after `afterRowId`. */
  window(bucket: bigint, afterRowId: bigint, limit: number): ScanWindow {
    const [kept, lastRowId] = this.windowStmt.get(bucket, afterRowId, limit) ?? [0n, null];
    return { kept: Number(kept), lastRowId };
  }

  /** The keys of those of these rows that are kept, in row order. */
  keptKeys(bucket: bigint, rowIds: readonly bigint[]): string[] {
    if (rowIds.length === 0) return [];
    return this.keptKeysStmt.all(bucket, rowIdsJson(rowIds)).map(([, key]) => key);
  }

  /** The first bucket after `bucket` that keeps a payload (null: none). */
  nextBucket(bucket: bigint): bigint | null {
    return this.nextBucketStmt.get(bucket) ?? null;
  }

  /** The bodies of these rows of a bucket table, by row id. */
  bodies(bucket: bigint, rowIds: readonly bigint[]): Map<bigint, Buffer> {
    const table = payloadTable(bucket);
    const stmt = this.table(table, 'bodies', `SELECT row_id, body FROM ${table} WHERE row_id IN (SELECT value FROM json_each(?))`);
    return new Map(stmt.raw().all(rowIdsJson(rowIds)) as [bigint, Buffer][]);
  }

  /**
   * The rows from `first` to `last` whose body holds `needle` (ASCII, lower case), compared with
   * ASCII-only case folding: SQLite's lower() folds A–Z and leaves every other byte as it is. A
   * row-id range, read in order (about 2M rows/s, F5): the caller keeps the kept rows among the
   * answer (a removed body is zeros, still in its place).
   */
  matching(bucket: bigint, first: bigint, last: bigint, needle: string): Set<bigint> {
    const table = payloadTable(bucket);
    const stmt = this.table(
      table,
      'matching',
      `SELECT row_id FROM ${table} WHERE row_id BETWEEN ? AND ? AND instr(lower(CAST(body AS TEXT)), ?) > 0`,
    );
    return new Set(stmt.pluck().all(first, last, needle) as bigint[]);
  }

  /**
   * The rows from `first` to `last` whose body, decoded and lower-cased by JavaScript, holds
   * `needle`: the fallback for what lower() cannot fold. One body in memory at a time, not a window's.
   */
  matchingInJs(bucket: bigint, first: bigint, last: bigint, needle: string): Set<bigint> {
    const table = payloadTable(bucket);
    const stmt = this.table(table, 'range', `SELECT row_id, body FROM ${table} WHERE row_id BETWEEN ? AND ?`);
    const hits = new Set<bigint>();
    for (const [rowId, body] of stmt.raw().iterate(first, last) as IterableIterator<[bigint, Buffer]>) {
      if (body.toString('utf8').toLowerCase().includes(needle)) hits.add(rowId);
    }
    return hits;
  }

  private table(table: string, role: string, sql: string): Database.Statement<unknown[], unknown> {
    return this.tableStmts.get(`${table}:${role}`, () => this.db.prepare(sql));
  }
}

function rowIdsJson(rowIds: readonly bigint[]): string {
  return JSON.stringify(rowIds.map(Number));
}
