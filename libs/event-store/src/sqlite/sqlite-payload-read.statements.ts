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

/** A kept payload's place: its key and its row in its bucket table. */
export interface KeptPlace {
  readonly key: string;
  readonly rowId: bigint;
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
  private readonly keptInBucketStmt;
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
    this.keptInBucketStmt = db
      .prepare<[bigint, bigint, number], [string, bigint]>(
        'SELECT key, row_id FROM payload_index WHERE removed_at IS NULL AND bucket = ? AND row_id > ? ORDER BY row_id LIMIT ?',
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

  /** Kept payloads of a bucket after `afterRowId`, in row order, at most `limit`. */
  keptInBucket(bucket: bigint, afterRowId: bigint, limit: number): KeptPlace[] {
    return this.keptInBucketStmt.all(bucket, afterRowId, limit).map(([key, rowId]) => ({ key, rowId }));
  }

  /** The first bucket after `bucket` that keeps a payload (null: none). */
  nextBucket(bucket: bigint): bigint | null {
    return this.nextBucketStmt.get(bucket) ?? null;
  }

  /** The bodies of these rows of a bucket table, by row id. */
  bodies(bucket: bigint, rowIds: readonly bigint[]): Map<bigint, Buffer> {
    const found = new Map<bigint, Buffer>();
    this.eachBody(bucket, rowIds, (rowId, body) => found.set(rowId, body));
    return found;
  }

  /**
   * The rows among these whose body holds `needle` (ASCII, lower case), compared with ASCII-only
   * case folding: SQLite's lower() folds A–Z and leaves every other byte as it is.
   */
  matching(bucket: bigint, rowIds: readonly bigint[], needle: string): Set<bigint> {
    const table = payloadTable(bucket);
    const stmt = this.table(
      table,
      'matching',
      `SELECT row_id FROM ${table} WHERE row_id IN (SELECT value FROM json_each(?)) AND instr(lower(CAST(body AS TEXT)), ?) > 0`,
    );
    return new Set(stmt.pluck().all(rowIdsJson(rowIds), needle) as bigint[]);
  }

  /**
   * Calls `visit` with each body of these rows, one at a time: the fallback scan holds one body in
   * memory, not a window's.
   */
  eachBody(bucket: bigint, rowIds: readonly bigint[], visit: (rowId: bigint, body: Buffer) => void): void {
    const table = payloadTable(bucket);
    const stmt = this.table(table, 'bodies', `SELECT row_id, body FROM ${table} WHERE row_id IN (SELECT value FROM json_each(?))`);
    for (const [rowId, body] of stmt.raw().iterate(rowIdsJson(rowIds)) as IterableIterator<[bigint, Buffer]>) visit(rowId, body);
  }

  private table(table: string, role: string, sql: string): Database.Statement<unknown[], unknown> {
    return this.tableStmts.get(`${table}:${role}`, () => this.db.prepare(sql));
  }
}

function rowIdsJson(rowIds: readonly bigint[]): string {
  return JSON.stringify(rowIds.map(Number));
}
