import type { Statement } from 'better-sqlite3';
import { auditListing, shapeKey, type AuditParams, type AuditShape } from '../audit-listing';
import { deniedSources, trimDenied, type DeniedClass } from '../denied-access.policy';
import {
  candidateListing,
  candidateShapeKey,
  KEPT_BY_RECEIVED_INDEX,
  type CandidateDialect,
  type CandidateParam,
  type CandidateRecord,
  type CandidateShape,
  type PayloadStateRecord,
} from '../payload-selection';
import type { AuditRow, DeniedAccessBounds, ParkedRow } from '../read-model.port';
import {
  ATTEMPT_COLUMNS,
  PROJECTION_TABLES,
  auditValues,
  columnList,
  hasFallback,
  selectList,
  type InsertedKind,
  type ProjectionTable,
  type SqlValue,
} from '../read-model.records';
import type { AttemptRecord, AuditRecord, CheckpointRecord, DeliveryRecord, PositionedRow, RunRecord } from '../read-model.rows';
import type { SqliteDatabase } from './sqlite-read-model.connection';

/** Every statement the store runs, prepared once per connection. */
export interface SqliteReadModelStatements {
  readonly loadCheckpoint: Statement<[string], CheckpointRecord>;
  readonly insertFirstCheckpoint: Statement<[string, bigint, bigint]>;
  readonly moveCheckpoint: Statement<[MoveCheckpoint]>;
  readonly deleteCheckpoint: Statement<[string]>;
  readonly insertChange: Readonly<Record<InsertedKind, Statement<SqlValue[]>>>;
  /** The first removal wins: a payload already removed keeps its reason and time. */
  readonly removePayload: Statement<[{ deliveryId: string; state: string; removedAt: string }]>;
  readonly payloadsDue: Statement<[{ now: string; limit: number }], { delivery_id: string }>;
  /** The erasure candidates of one selection shape (parameters named as CandidateParam; ids as a JSON array). */
  readonly candidates: (shape: CandidateShape) => Statement<[Partial<Record<CandidateParam, string | number>>], CandidateRecord>;
  readonly payloadStates: Statement<[string], PayloadStateRecord>;
  readonly deleteProjected: readonly Statement<[]>[];
  readonly deliveries: Statement<[ListAfter & { routineId: string }], DeliveryRecord>;
  readonly waitingDeliveries: Statement<[WaitingAfter], { waiting: bigint }>;
  readonly runs: Statement<[ListAfter & { routineId: string }], RunRecord>;
  readonly parkedAll: Statement<[ListAfter], PositionedRow<ParkedRow>>;
  readonly parkedOfRoutine: Statement<[ListAfter & { routineId: string }], PositionedRow<ParkedRow>>;
  readonly insertAttempt: Statement<string[]>;
  readonly pruneAttempts: Statement<[{ webhookId: string; keep: number }]>;
  readonly attempts: Statement<[{ webhookId: string; afterId: bigint; limit: number }], AttemptRecord>;
  readonly addReplays: Statement<[string, number]>;
  /** Deletes the denied audit entries of a class older than its newest `keep`. */
  readonly trimDenied: Readonly<Record<DeniedClass, Statement<[{ keep: number }]>>>;
  /** Deletes the denied audit entries of a class and a source older than their newest `keep`. */
  readonly trimDeniedOfSource: Readonly<Record<DeniedClass, Statement<[{ source: string; keep: number }]>>>;
  /** The audit listing of one shape (filters present, first page or not). */
  readonly audit: (shape: AuditShape) => Statement<[AuditParams], AuditRecord>;
  readonly ping: Statement<[]>;
}

export interface MoveCheckpoint {
  readonly name: string;
  readonly fromCommit: bigint;
  readonly fromPrepare: bigint;
  readonly toCommit: bigint;
  readonly toPrepare: bigint;
}

/** Continue strictly after (commit, prepare), newest first; `limit` is the page size + 1. */
export interface ListAfter {
  readonly commit: bigint;
  readonly prepare: bigint;
  readonly limit: number;
}

/** The deliveries of `routineId` accepted strictly after (commit, prepare), at most `cap` of them. */
export interface WaitingAfter {
  readonly routineId: string;
  readonly commit: bigint;
  readonly prepare: bigint;
  readonly beforeCommit: bigint;
  readonly beforePrepare: bigint;
  readonly cap: number;
}

const AFTER = '(commit_pos, prepare_pos) < (@commit, @prepare)';
const NEWEST_FIRST = 'ORDER BY commit_pos DESC, prepare_pos DESC LIMIT @limit';

const AUDIT_SHAPES: readonly AuditShape[] = [false, true].flatMap((routine) =>
  [false, true].flatMap((actor) => [false, true].map((after) => ({ routine, actor, after }))),
);

/** How SQLite writes an erasure candidate listing (payload-selection.ts). */
export const SQLITE_CANDIDATES: CandidateDialect = {
  param: (name) => `@${name}`,
  idIn: (placeholder) => `delivery_id IN (SELECT value FROM json_each(${placeholder}))`,
  // Named, so that a window is never a scan of the whole table, and a schema without the index fails to
  // prepare (at the first erasure of that shape: listings are prepared when first used).
  keptByReceived: `rm_deliveries INDEXED BY ${KEPT_BY_RECEIVED_INDEX}`,
};

export function prepareStatements(db: SqliteDatabase): SqliteReadModelStatements {
  const { delivery, run, parked, webhook_routine: webhookRoutine, audit } = PROJECTION_TABLES;
  const auditListings = new Map(
    AUDIT_SHAPES.map((shape) => [shapeKey(shape), db.prepare<[AuditParams], AuditRecord>(auditListing(shape, (name) => `@${name}`).text)]),
  );
  // Prepared when first used: most of the 64 shapes never are.
  const candidates = new Map<string, Statement<[Partial<Record<CandidateParam, string | number>>], CandidateRecord>>();
  return {
    loadCheckpoint: db.prepare('SELECT commit_pos, prepare_pos FROM rm_checkpoints WHERE name = ?'),
    insertFirstCheckpoint: db.prepare(
      'INSERT INTO rm_checkpoints (name, commit_pos, prepare_pos) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    ),
    moveCheckpoint: db.prepare(
      `UPDATE rm_checkpoints SET commit_pos = @toCommit, prepare_pos = @toPrepare
       WHERE name = @name AND commit_pos = @fromCommit AND prepare_pos = @fromPrepare`,
    ),
    deleteCheckpoint: db.prepare('DELETE FROM rm_checkpoints WHERE name = ?'),
    insertChange: {
      delivery: insertIgnoring(db, delivery),
      run: insertIgnoring(db, run),
      parked: insertIgnoring(db, parked),
      webhook_routine: insertIgnoring(db, webhookRoutine),
      audit: insertIgnoring(db, audit),
    },
    removePayload: db.prepare(
      `UPDATE rm_deliveries SET payload_state = @state, payload_removed_at = @removedAt
       WHERE delivery_id = @deliveryId AND payload_state = 'kept'`,
    ),
    payloadsDue: db.prepare(
      `SELECT delivery_id FROM rm_deliveries WHERE payload_state = 'kept' AND payload_expires_at <= @now
       ORDER BY payload_expires_at, delivery_id LIMIT @limit`,
    ),
    candidates: (shape) => {
      const key = candidateShapeKey(shape);
      let statement = candidates.get(key);
      if (!statement) {
        const listing = candidateListing(shape, SQLITE_CANDIDATES);
        statement = db.prepare<[Partial<Record<CandidateParam, string | number>>], CandidateRecord>(listing.text);
        candidates.set(key, statement);
      }
      return statement;
    },
    payloadStates: db.prepare(
      `SELECT delivery_id, payload_state, payload_expires_at, payload_removed_at FROM rm_deliveries
       WHERE delivery_id IN (SELECT value FROM json_each(?))`,
    ),
    // Denied audit entries are not projected: a rebuild keeps them.
    deleteProjected: [
      ...[delivery, run, parked, webhookRoutine].map((spec) => db.prepare<[]>(`DELETE FROM ${spec.table}`)),
      db.prepare<[]>(`DELETE FROM ${audit.table} WHERE outcome <> 'denied'`),
    ],
    deliveries: db.prepare(
      `SELECT ${columnList(delivery, 'd')}, d.payload_state, d.payload_removed_at, COALESCE(r.replays, 0) AS replays
       FROM rm_deliveries d LEFT JOIN rm_delivery_replays r ON r.delivery_id = d.delivery_id
       WHERE d.routine_id = @routineId AND (d.commit_pos, d.prepare_pos) < (@commit, @prepare)
       ORDER BY d.commit_pos DESC, d.prepare_pos DESC LIMIT @limit`,
    ),
    // One range scan of rm_deliveries_by_routine downwards from `before`, stopped after `cap` rows;
    // a primary-key probe of rm_runs and an index probe of rm_parked per row.
    waitingDeliveries: db.prepare(
      `SELECT count(*) AS waiting FROM (
         SELECT d.run_id, d.delivery_id FROM rm_deliveries d
         WHERE d.routine_id = @routineId AND (d.commit_pos, d.prepare_pos) > (@commit, @prepare)
           AND (d.commit_pos, d.prepare_pos) < (@beforeCommit, @beforePrepare)
         ORDER BY d.commit_pos DESC, d.prepare_pos DESC LIMIT @cap) w
       WHERE NOT EXISTS (SELECT 1 FROM rm_runs r WHERE r.run_id = w.run_id)
         AND NOT EXISTS (SELECT 1 FROM rm_parked p WHERE p.delivery_id = w.delivery_id)`,
    ),
    runs: db.prepare(`SELECT ${columnList(run)} FROM rm_runs WHERE routine_id = @routineId AND ${AFTER} ${NEWEST_FIRST}`),
    parkedAll: db.prepare(`SELECT ${columnList(parked)} FROM rm_parked WHERE ${AFTER} ${NEWEST_FIRST}`),
    parkedOfRoutine: db.prepare(`SELECT ${columnList(parked)} FROM rm_parked WHERE routine_id = @routineId AND ${AFTER} ${NEWEST_FIRST}`),
    insertAttempt: db.prepare(
      `INSERT INTO rm_rejected_attempts (${ATTEMPT_COLUMNS.join(', ')}) VALUES (${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`,
    ),
    // The boundary is the webhook's (keep+1)th newest id; none (fewer rows) compares as NULL: no delete.
    pruneAttempts: db.prepare(
      `DELETE FROM rm_rejected_attempts WHERE webhook_id = @webhookId AND id <= (
         SELECT id FROM rm_rejected_attempts WHERE webhook_id = @webhookId ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    ),
    attempts: db.prepare(
      `SELECT id, ${ATTEMPT_COLUMNS.join(', ')} FROM rm_rejected_attempts
       WHERE webhook_id = @webhookId AND id < @afterId ORDER BY id DESC LIMIT @limit`,
    ),
    addReplays: db.prepare(
      `INSERT INTO rm_delivery_replays (delivery_id, replays) VALUES (?, ?)
       ON CONFLICT (delivery_id) DO UPDATE SET replays = replays + excluded.replays`,
    ),
    trimDenied: {
      named: db.prepare(trimDenied('named', { keep: '@keep' })),
      anonymous: db.prepare(trimDenied('anonymous', { keep: '@keep' })),
    },
    trimDeniedOfSource: {
      named: db.prepare(trimDenied('named', { keep: '@keep', source: '@source' })),
      anonymous: db.prepare(trimDenied('anonymous', { keep: '@keep', source: '@source' })),
    },
    audit: (shape) => {
      const statement = auditListings.get(shapeKey(shape));
      if (!statement) throw new Error(`no audit listing for ${shapeKey(shape)}`);
      return statement;
    },
    ping: db.prepare('SELECT 1'),
  };
}

/**
 * Inserts denied entries (an id already there is left as it is), then trims each (class, source)
 * the batch touched to its newest `perSource` and each class it touched to its newest `overall`.
 */
export function writeDenied(q: SqliteReadModelStatements, rows: readonly AuditRow[], bounds: DeniedAccessBounds): void {
  for (const row of rows) q.insertChange.audit.run(...auditValues(row));
  for (const [deniedClass, sources] of deniedSources(rows)) {
    for (const source of sources) q.trimDeniedOfSource[deniedClass].run({ source, keep: bounds.perSource });
    q.trimDenied[deniedClass].run({ keep: bounds.overall });
  }
}

/**
 * Idempotent projection: a row whose key exists is left exactly as it is. A table with a fallback
 * column reads its values from a one-row source, so the fallback can name the row's other columns
 * (`WHERE true`: SQLite's parser needs it between a SELECT and ON CONFLICT).
 */
function insertIgnoring(db: SqliteDatabase, spec: ProjectionTable): Statement<SqlValue[]> {
  const placeholders = spec.columns.map(() => '?').join(', ');
  if (!hasFallback(spec)) {
    return db.prepare<SqlValue[]>(
      `INSERT INTO ${spec.table} (${columnList(spec)}) VALUES (${placeholders}) ON CONFLICT (${spec.key}) DO NOTHING`,
    );
  }
  const source = spec.columns.map((column) => `? AS ${column.name}`).join(', ');
  return db.prepare<SqlValue[]>(
    `INSERT INTO ${spec.table} (${columnList(spec)})
     SELECT ${selectList(spec, 'c')} FROM (SELECT ${source}) AS c WHERE true ON CONFLICT (${spec.key}) DO NOTHING`,
  );
}
