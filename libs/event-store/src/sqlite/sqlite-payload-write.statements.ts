import type Database from 'better-sqlite3';
import { InvalidAppendError } from '../event-store.errors';
import type { PayloadAttachment, PayloadRemoval } from '../payload-store.port';
import { PAYLOAD_BUCKET_MS, payloadBucketOf, payloadTable } from './sqlite-schema.migrations';
import { isSqliteError } from './sqlite-file.connection';
import { StatementCache } from './sqlite-statement.cache';

interface KeptRow {
  readonly bucket: bigint;
  readonly row_id: bigint;
}

/** Bucket tables whose statements stay prepared: the current hours of the retention classes in use. */
const CACHED_TABLES = 32;

/**
 * The writer thread's payload SQL: store a body with its append, remove bodies by overwriting
 * them, drop bucket tables whose hour is past. Every method runs inside the writer's transaction
 * (the batch's, in a savepoint), so a payload is committed, or not, with what it belongs to.
 * The handle must have defaultSafeIntegers(true).
 */
export class SqlitePayloadWrites {
  private readonly insertIndexStmt;
  private readonly standBucketStmt;
  private readonly keptStmt;
  private readonly markRemovedStmt;
  private readonly standingPastStmt;
  private readonly keepsAnyStmt;
  private readonly markDroppedStmt;
  private readonly tableStmts = new StatementCache<Database.Statement<unknown[], unknown>>(CACHED_TABLES * 3);

  constructor(private readonly db: Database.Database) {
    this.insertIndexStmt = db.prepare<[string, string, string, number, bigint, number, number, number]>(
      `INSERT INTO payload_index (key, webhook_id, format, bucket, row_id, received_at, expires_at, bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // A bucket dropped earlier and written again (a payload that came in already past its hour) stands again, to be dropped again.
    this.standBucketStmt = db.prepare<[number]>(
      `INSERT INTO payload_buckets (bucket) VALUES (?)
       ON CONFLICT (bucket) DO UPDATE SET dropped_at = NULL WHERE dropped_at IS NOT NULL`,
    );
    this.keptStmt = db.prepare<[string], KeptRow>('SELECT bucket, row_id FROM payload_index WHERE key = ? AND removed_at IS NULL');
    this.markRemovedStmt = db.prepare<[number, string, string | null, string]>(
      'UPDATE payload_index SET removed_at = ?, removed_reason = ?, erasure_id = ? WHERE key = ?',
    );
    this.standingPastStmt = db
      .prepare<[number], bigint>('SELECT bucket FROM payload_buckets WHERE dropped_at IS NULL AND bucket < ? ORDER BY bucket')
      .pluck();
    this.keepsAnyStmt = db.prepare<[bigint], number>('SELECT 1 FROM payload_index WHERE bucket = ? AND removed_at IS NULL LIMIT 1').pluck();
    this.markDroppedStmt = db.prepare<[number, bigint]>('UPDATE payload_buckets SET dropped_at = ? WHERE bucket = ?');
  }

  /**
   * Stores the body in its bucket table, then its index row. A bucket's table and its standing row
   * in payload_buckets come and go together (made here, dropped by dropPastBuckets, each in one
   * transaction), so only an insert that finds no table makes both (the first payload of an hour,
   * or one that came in already past its hour, after its table was dropped). A key that has a
   * payload already (kept or removed) is refused by the index's primary key: a removed payload
   * never comes back, and a key names one payload for good. Three statements for a payload of a
   * standing bucket.
   */
  store(payload: PayloadAttachment): void {
    const bucket = payloadBucketOf(payload.expiresAt);
    const table = payloadTable(bucket);
    const body = Buffer.from(payload.text, 'utf8');
    const rowId = this.insertBody(bucket, table, body);
    const { key, webhookId, format, receivedAt, expiresAt } = payload;
    try {
      this.insertIndexStmt.run(key, webhookId, format, bucket, rowId, receivedAt, expiresAt, body.length);
    } catch (error) {
      // The append's savepoint rolls the body back with the refusal.
      if (isSqliteError(error) && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new InvalidAppendError(`a payload is stored under key ${key} already`);
      }
      throw error;
    }
  }

  private insertBody(bucket: number, table: string, body: Buffer): bigint {
    const insert = (): bigint => BigInt(this.table(table, 'insert', `INSERT INTO ${table} (body) VALUES (?)`).run(body).lastInsertRowid);
    try {
      return insert();
    } catch (error) {
      // Nothing was written: SQLite refuses a statement on a missing table when it prepares it.
      if (!isNoSuchTable(error)) throw error;
    }
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (row_id INTEGER PRIMARY KEY, body BLOB NOT NULL)`);
    this.standBucketStmt.run(bucket);
    return insert();
  }

  /**
   * Overwrites the kept bodies of these keys with zeros of the same length, in place (no row is
   * deleted from a table that still holds live bodies: balancing after a DELETE leaves stale copies
   * of cells in the free gaps of live pages), and records them removed. Returns how many were kept.
   */
  remove(keys: readonly string[], removal: PayloadRemoval): number {
    let removed = 0;
    for (const key of new Set(keys)) {
      const kept = this.keptStmt.get(key);
      if (!kept) continue;
      const table = payloadTable(kept.bucket);
      this.table(table, 'zero', `UPDATE ${table} SET body = zeroblob(length(body)) WHERE row_id = ?`).run(kept.row_id);
      this.markRemovedStmt.run(removal.at, removal.reason, removal.erasureId, key);
      removed += 1;
    }
    return removed;
  }

  /**
   * Drops up to `max` bucket tables whose hour ended by `now` and that keep no payload (all removed):
   * with secure_delete on, their freed pages are zeroed. Their index rows stay: the record of what
   * was stored and when it went. Returns how many were dropped.
   */
  dropPastBuckets(now: number, max: number): number {
    let dropped = 0;
    // Buckets whose hour is entirely past: (bucket + 1) × hour ≤ now.
    const pastBefore = Math.floor(now / PAYLOAD_BUCKET_MS);
    // .all(), not .iterate(): a table cannot be dropped while a statement still reads this connection.
    for (const bucket of this.standingPastStmt.all(pastBefore)) {
      if (dropped >= max) break;
      if (this.keepsAnyStmt.get(bucket) !== undefined) continue;
      const table = payloadTable(bucket);
      this.tableStmts.forget(`${table}:`);
      this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      this.markDroppedStmt.run(Date.now(), bucket);
      dropped += 1;
    }
    return dropped;
  }

  private table(table: string, role: string, sql: string): Database.Statement<unknown[], unknown> {
    return this.tableStmts.get(`${table}:${role}`, () => this.db.prepare(sql));
  }
}

/** A statement on a bucket table that does not exist (yet, or any more): SQLite names it in the message. */
function isNoSuchTable(error: unknown): boolean {
  return isSqliteError(error) && error.code === 'SQLITE_ERROR' && error.message.includes('no such table');
}
