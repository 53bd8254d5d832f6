import type Database from 'better-sqlite3';
import type { SerializedEvent } from '../append.validation';
import type { RecordedEvent } from '../event-store.port';

export interface StoredEventRef {
  readonly streamId: string;
  readonly revision: bigint;
  readonly seq: bigint;
}

interface EventRow {
  readonly seq: bigint;
  readonly stream_id: string;
  readonly revision: bigint;
  readonly event_id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly created_at: bigint;
}

interface RefRow {
  readonly stream_id: string;
  readonly revision: bigint;
  readonly seq: bigint;
}

const MAX_SEQ = 9223372036854775807n;
/** Filter shapes whose statements stay prepared (the code uses a handful). */
const MAX_CACHED_RANGE_SHAPES = 16;
const COLUMNS = 'seq, stream_id, revision, event_id, type, data, metadata, created_at';
/** The same, named by table: json_each has columns of its own (type, id …). */
const QUALIFIED_COLUMNS = COLUMNS.split(', ')
  .map((column) => `events.${column}`)
  .join(', ');
/** Literal prefix test: no LIKE, so `_` and `%` in stream names mean themselves. */
const PREFIX_TEST = 'substr(stream_id, 1, length(?)) = ?';

/** A prefix that names a whole category ("webhook-": one dash, at the end) can use the category index. */
function isCategoryPrefix(prefix: string): boolean {
  return prefix.indexOf('-') === prefix.length - 1;
}

/**
 * The prepared statements of the events table, prepared once per connection (hot path).
 * The handle must have defaultSafeIntegers(true): positions and revisions are bigints.
 */
export class SqliteEventStatements {
  private readonly lastRevisionStmt;
  private readonly lastEventStmt;
  private readonly refByEventIdStmt;
  private readonly insertStmt;
  private readonly headStmt;
  private readonly streamStmt;
  /** readFirstEvents: one statement whatever the number of streams (their ids as one JSON array). */
  private readonly firstEventsStmt;
  /**
   * readRange statements by filter shape: "all", "p<n>" (n prefixes), "c<n>" (n categories). The
   * filters come from the code (the relays', projector's and configuration feed's own), never from
   * a request; past MAX_CACHED_RANGE_SHAPES a shape is prepared for its call and not kept.
   */
  private readonly rangeStmts = new Map<string, Database.Statement<unknown[], EventRow>>();
  /** streamHeads: one statement whatever the number of streams (their ids as one JSON array). */
  private readonly headsStmt;

  constructor(private readonly db: Database.Database) {
    this.lastRevisionStmt = db.prepare<[string], bigint | null>('SELECT max(revision) FROM events WHERE stream_id = ?').pluck();
    this.lastEventStmt = db.prepare<[string], RefRow>(
      'SELECT stream_id, revision, seq FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
    );
    this.refByEventIdStmt = db.prepare<[string], RefRow>('SELECT stream_id, revision, seq FROM events WHERE event_id = ?');
    this.insertStmt = db.prepare<[string, bigint, string, string, string, string, number, bigint | null]>(
      `INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at, payload_row)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.headStmt = db.prepare<[], bigint | null>('SELECT max(seq) FROM events').pluck();
    this.headsStmt = db
      .prepare<[string], [string, bigint | null]>(
        'SELECT j.value, (SELECT max(revision) FROM events WHERE stream_id = j.value) FROM json_each(?) AS j',
      )
      .raw();
    // json_each drives the join (CROSS JOIN keeps it outermost): one (stream_id, revision) index lookup per id.
    this.firstEventsStmt = db.prepare<[string], EventRow>(
      `SELECT ${QUALIFIED_COLUMNS} FROM json_each(?) AS j CROSS JOIN events WHERE events.stream_id = j.value AND events.revision = 0`,
    );
    this.streamStmt = db.prepare<[string, bigint, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`,
    );
  }

  /** The revision of the last event of the stream; -1n when it does not exist. */
  lastRevision(streamId: string): bigint {
    return this.lastRevisionStmt.get(streamId) ?? -1n;
  }

  lastEvent(streamId: string): StoredEventRef | undefined {
    const row = this.lastEventStmt.get(streamId);
    return row && toRef(row);
  }

  findByEventId(eventId: string): StoredEventRef | undefined {
    const row = this.refByEventIdStmt.get(eventId);
    return row && toRef(row);
  }

  /** Inserts one event (with the row of the payload its append stored, if any) and returns its global sequence number. */
  insert(streamId: string, revision: bigint, event: SerializedEvent, createdAt: number, payloadRow: bigint | null = null): bigint {
    const { id, type, data, metadata } = event;
    const result = this.insertStmt.run(streamId, revision, id, type, data, metadata, createdAt, payloadRow);
    return BigInt(result.lastInsertRowid);
  }

  /** The highest sequence number in the store; 0n when it is empty. */
  headSeq(): bigint {
    return this.headStmt.get() ?? 0n;
  }

  /** maxCount -1: no limit. */
  readStream(streamId: string, fromRevision = 0n, maxCount = -1): RecordedEvent[] {
    return this.streamStmt.all(streamId, fromRevision, maxCount).map(toRecordedEvent);
  }

  /** The first event of each of these streams that exists, by stream id. */
  firstEvents(streamIds: readonly string[]): Map<string, RecordedEvent> {
    const found = new Map<string, RecordedEvent>();
    if (streamIds.length === 0) return found;
    for (const row of this.firstEventsStmt.all(JSON.stringify([...new Set(streamIds)]))) found.set(row.stream_id, toRecordedEvent(row));
    return found;
  }

  /**
   * The last revision of each stream that exists (absent from the map: no stream): the
   * per-request freshness check of the ingress. One prepared statement for any number of streams
   * (their ids bound as one JSON array, walked by json_each), one index lookup each — so no
   * statement is built per batch size, and no batch is too large for SQLite's parameter limit.
   */
  streamHeads(streamIds: readonly string[]): Map<string, bigint> {
    const found = new Map<string, bigint>();
    if (streamIds.length === 0) return found;
    for (const [streamId, revision] of this.headsStmt.all(JSON.stringify([...new Set(streamIds)]))) {
      if (revision !== null) found.set(streamId, revision);
    }
    return found;
  }

  /** How many statements this connection keeps prepared for the variable-shape queries (bounded). */
  cachedStatementCount(): number {
    return this.rangeStmts.size + 1;
  }

  /** Events with afterSeq < seq <= uptoSeq in global order, at most `limit`, optionally by prefix. */
  readRange(afterSeq: bigint, limit: number, prefixes: readonly string[] | undefined, uptoSeq: bigint = MAX_SEQ): RecordedEvent[] {
    if (limit === 0 || prefixes?.length === 0) return [];
    if (prefixes === undefined) return this.rangeStatement('all', '').all(afterSeq, uptoSeq, limit).map(toRecordedEvent);
    if (prefixes.every(isCategoryPrefix)) {
      const categories = [...new Set(prefixes)];
      const stmt = this.rangeStatement(`c${categories.length}`, `AND category IN (${categories.map(() => '?').join(', ')})`);
      return stmt.all(afterSeq, uptoSeq, ...categories, limit).map(toRecordedEvent);
    }
    const params: unknown[] = [afterSeq, uptoSeq];
    for (const prefix of prefixes) params.push(prefix, prefix);
    params.push(limit);
    const stmt = this.rangeStatement(`p${prefixes.length}`, `AND (${prefixes.map(() => PREFIX_TEST).join(' OR ')})`);
    return stmt.all(...params).map(toRecordedEvent);
  }

  private rangeStatement(shape: string, filter: string): Database.Statement<unknown[], EventRow> {
    let stmt = this.rangeStmts.get(shape);
    if (!stmt) {
      stmt = this.db.prepare<unknown[], EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE seq > ? AND seq <= ? ${filter} ORDER BY seq LIMIT ?`,
      );
      if (this.rangeStmts.size < MAX_CACHED_RANGE_SHAPES) this.rangeStmts.set(shape, stmt);
    }
    return stmt;
  }
}

function toRef(row: RefRow): StoredEventRef {
  return { streamId: row.stream_id, revision: row.revision, seq: row.seq };
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    position: { commit: row.seq, prepare: row.seq },
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as unknown,
    createdAt: new Date(Number(row.created_at)),
  };
}
