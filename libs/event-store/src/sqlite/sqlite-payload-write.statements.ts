import type Database from 'better-sqlite3';
import { InvalidAppendError } from '../event-store.errors';
import type { PayloadAttachment, PayloadRemoval } from '../payload-store.port';
import { isSqliteError } from './sqlite-file.connection';
import { PAYLOAD_BUCKET_MS, bucketOfRow, createPayloadTable, payloadBucketOf, payloadRowId, payloadTable } from './sqlite-payload.records';
import { KEPT_ROW_OF_KEY, PAYLOAD_OF_KEY, STANDING_BUCKETS_UP_TO, type StandingBucket } from './sqlite-payload-read.statements';
import { StatementCache } from './sqlite-statement.cache';

/** Bucket tables whose statements stay prepared: the current hours of the retention classes in use. */
const CACHED_TABLES = 32;
/** Row ids tried for one body before giving up: another is needed only for a payload expiring in the same millisecond. */
const ROW_ID_TRIES = 16;

/**
 * The writer thread's payload SQL: store a body with its append, remove bodies by overwriting
 * them, move each bucket's sweep frontier and drop bucket tables whose hour is past. Every method
 * runs inside the writer's transaction (the batch's, in a savepoint), so a payload is committed,
 * or not, with what it belongs to. The handle must have defaultSafeIntegers(true).
 */
export class SqlitePayloadWrites {
  private readonly keptRowStmt;
  private readonly takenStmt;
  private readonly addCategoryStmt;
  private readonly standBucketStmt;
  private readonly sweptToStmt;
  private readonly setSweptToStmt;
  private readonly recordRemovalStmt;
  private readonly standingByStmt;
  private readonly markDroppedStmt;
  private readonly tableStmts = new StatementCache<Database.Statement<unknown[], unknown>>(CACHED_TABLES * 4);
  /** The low bits of the next row id: any start will do, distinct ones tell apart payloads of one millisecond. */
  private low = Math.floor(Math.random() * 2 ** 21);

  constructor(private readonly db: Database.Database) {
    this.keptRowStmt = db.prepare<[string], bigint>(KEPT_ROW_OF_KEY).pluck();
    this.takenStmt = db.prepare<[string], bigint>(`${PAYLOAD_OF_KEY} LIMIT 1`).pluck();
    // Ignored when listed already: no page is written then.
    this.addCategoryStmt = db.prepare<[string]>('INSERT OR IGNORE INTO payload_categories (category) VALUES (?)');
    // A bucket dropped earlier and written again (a payload that came in already past its hour) stands again, to be dropped again.
    this.standBucketStmt = db.prepare<[number]>(
      `INSERT INTO payload_buckets (bucket) VALUES (?)
       ON CONFLICT (bucket) DO UPDATE SET dropped_at = NULL, swept_to = 0 WHERE dropped_at IS NOT NULL`,
    );
    this.sweptToStmt = db.prepare<[number], bigint>('SELECT swept_to FROM payload_buckets WHERE bucket = ?').pluck();
    this.setSweptToStmt = db.prepare<[bigint, bigint | number]>('UPDATE payload_buckets SET swept_to = ? WHERE bucket = ?');
    this.recordRemovalStmt = db.prepare<[bigint, number, string, string | null]>(
      'INSERT INTO payload_removals (row_id, removed_at, reason, erasure_id) VALUES (?, ?, ?, ?)',
    );
    this.standingByStmt = db.prepare<[number], StandingBucket>(STANDING_BUCKETS_UP_TO);
    this.markDroppedStmt = db.prepare<[number, bigint]>('UPDATE payload_buckets SET dropped_at = ? WHERE bucket = ?');
  }

  /**
   * Stores the body of the payload of `streamId` (whose first event this append is about to write)
   * in its bucket table and returns its row id, for that event's payload_row. One b-tree written:
   * the rest is reads, and a row in payload_categories (the first payload of a category) or
   * payload_buckets (the first of an hour). A key that has a payload already (kept or removed),
   * in any category, is refused: a removed payload never comes back, and a key names one payload
   * for good. A body stored behind its bucket's sweep frontier (it came in already expired) moves
   * the frontier back, so the sweep still finds it.
   */
  store(streamId: string, payload: PayloadAttachment): bigint {
    const { key } = payload;
    if (this.takenStmt.get(key) !== undefined) throw new InvalidAppendError(`a payload is stored under key ${key} already`);
    // The adapter checked that the stream is <category><key>.
    const category = streamId.slice(0, streamId.length - key.length);
    this.addCategoryStmt.run(category);
    const bucket = payloadBucketOf(payload.expiresAt);
    const rowId = this.insertBody(bucket, payload);
    const sweptTo = this.sweptToStmt.get(bucket);
    if (sweptTo !== undefined && rowId <= sweptTo) this.setSweptToStmt.run(rowId - 1n, bucket);
    return rowId;
  }

  private insertBody(bucket: number, payload: PayloadAttachment): bigint {
    const table = payloadTable(bucket);
    const body = Buffer.from(payload.text, 'utf8');
    const format = payload.format === 'json' ? 0 : 1;
    const insert = (rowId: bigint): void => {
      const sql = `INSERT INTO ${table} (row_id, key, format, received_at, removed, body) VALUES (?, ?, ?, ?, 0, ?)`;
      this.table(table, 'insert', sql).run(rowId, payload.key, format, payload.receivedAt, body);
    };
    for (let tries = 0; ; tries += 1) {
      this.low = (this.low + 1) % 2 ** 21;
      const rowId = payloadRowId(payload.expiresAt, this.low);
      try {
        insert(rowId);
        return rowId;
      } catch (error) {
        if (isNoSuchTable(error)) {
          // Nothing was written: SQLite refuses a statement on a missing table when it prepares it.
          createPayloadTable(this.db, bucket);
          this.standBucketStmt.run(bucket);
          insert(rowId);
          return rowId;
        }
        if (!isRowIdTaken(error) || tries >= ROW_ID_TRIES) throw error;
      }
    }
  }

  /**
   * Overwrites the kept bodies of these keys with zeros of the same length, in place, and marks
   * their rows removed (0 → 1: the same size). No row is deleted from a table that still holds live
   * bodies: balancing after a DELETE leaves stale copies of cells in the free gaps of live pages.
   * The removal is recorded in payload_removals, which outlives the table. Returns how many were kept.
   */
  remove(keys: readonly string[], removal: PayloadRemoval): number {
    let removed = 0;
    for (const key of new Set(keys)) {
      const rowId = this.keptRowStmt.get(key);
      if (rowId === undefined) continue;
      const table = payloadTable(bucketOfRow(rowId));
      const sql = `UPDATE ${table} SET removed = 1, body = zeroblob(length(body)) WHERE row_id = ?`;
      this.table(table, 'zero', sql).run(rowId);
      this.recordRemovalStmt.run(rowId, removal.at, removal.reason, removal.erasureId);
      removed += 1;
    }
    return removed;
  }

  /**
   * For the buckets whose hour has begun by `now`: moves each one's sweep frontier past the removed
   * rows at its start (at most `maxRows` rows read in all), then drops up to `maxDrops` tables whose
   * hour ended by `now` and that keep no payload (all removed): with secure_delete on, their freed
   * pages are zeroed. The removal records stay. Returns how many were dropped.
   */
  settleBuckets(now: number, maxDrops: number, maxRows: number): number {
    let [dropped, budget] = [0, maxRows];
    // .all(), not .iterate(): a table cannot be dropped while a statement still reads this connection.
    for (const { bucket, swept_to: sweptTo } of this.standingByStmt.all(payloadBucketOf(now))) {
      const table = payloadTable(bucket);
      const rows = this.table(table, 'frontier', `SELECT row_id, removed FROM ${table} WHERE row_id > ? ORDER BY row_id LIMIT ?`);
      let frontier = sweptTo;
      let keeps = false;
      for (const [rowId, removed] of rows.raw().all(sweptTo, budget) as [bigint, bigint][]) {
        budget -= 1;
        if (removed === 0n) {
          keeps = true;
          break;
        }
        frontier = rowId;
      }
      if (frontier !== sweptTo) this.setSweptToStmt.run(frontier, bucket);
      const past = (Number(bucket) + 1) * PAYLOAD_BUCKET_MS <= now;
      if (past && !keeps && dropped < maxDrops && this.endsBy(table, frontier)) {
        this.tableStmts.forget(`${table}:`);
        this.db.exec(`DROP TABLE IF EXISTS ${table}`);
        this.markDroppedStmt.run(Date.now(), bucket);
        dropped += 1;
      }
      if (budget <= 0) break;
    }
    return dropped;
  }

  /** True when the table has no row after `frontier`. */
  private endsBy(table: string, frontier: bigint): boolean {
    const last = this.table(table, 'last', `SELECT max(row_id) FROM ${table}`).pluck().get() as bigint | null;
    return last === null || last <= frontier;
  }

  private table(table: string, role: string, sql: string): Database.Statement<unknown[], unknown> {
    return this.tableStmts.get(`${table}:${role}`, () => this.db.prepare(sql));
  }
}

/** A statement on a bucket table that does not exist (yet, or any more): SQLite names it in the message. */
function isNoSuchTable(error: unknown): boolean {
  return isSqliteError(error) && error.code === 'SQLITE_ERROR' && error.message.includes('no such table');
}

function isRowIdTaken(error: unknown): boolean {
  return isSqliteError(error) && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
