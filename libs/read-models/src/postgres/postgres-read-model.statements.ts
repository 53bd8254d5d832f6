import { auditListing, shapeKey, type AuditListing, type AuditShape } from '../audit-listing';
import { deniedOfClass, trimDenied, type DeniedClass } from '../denied-access.policy';
import { candidateListing, candidateShapeKey, type CandidateListing, type CandidateShape } from '../payload-selection';
import type { PayloadRemovalRow, ProjectionChange } from '../read-model.port';
import {
  ATTEMPT_COLUMNS,
  PROJECTION_TABLES,
  WRITE_ORDER,
  changeValues,
  columnList,
  kindsReadBy,
  selectList,
  type InsertedChange,
  type InsertedKind,
  type ProjectionTable,
  type SqlValue,
} from '../read-model.records';

/**
 * The adapter's SQL. Batches travel as one array parameter per column and are expanded with
 * unnest, so a commit is one statement per table whatever its size, with no SQL built from data.
 * Positions and ids travel as decimal strings (int8 is parsed back to bigint by the caller).
 */

/**
 * Serialises commit() and reset() of one schema ($1: its commit lock key): both touch the
 * checkpoint row and the projected rows, so without it they could deadlock.
 */
export const COMMIT_LOCK = 'SELECT pg_advisory_xact_lock($1::bigint)';

export const LOAD_CHECKPOINT = 'SELECT commit_pos, prepare_pos FROM rm_checkpoints WHERE name = $1';
/** A concurrent first commit makes this insert nothing (rowCount 0) instead of failing the transaction. */
export const INSERT_FIRST_CHECKPOINT =
  'INSERT INTO rm_checkpoints (name, commit_pos, prepare_pos) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING';
/** Compare-and-set: the row lock makes a concurrent mover wait, then see the new values and match nothing. */
export const MOVE_CHECKPOINT =
  'UPDATE rm_checkpoints SET commit_pos = $4, prepare_pos = $5 WHERE name = $1 AND commit_pos = $2 AND prepare_pos = $3';

/** Denied audit entries are not projected: a rebuild keeps them. */
export const RESET_STATEMENTS = [
  'DELETE FROM rm_deliveries',
  'DELETE FROM rm_runs',
  'DELETE FROM rm_parked',
  'DELETE FROM rm_webhook_routines',
  "DELETE FROM rm_audit_entries WHERE outcome <> 'denied'",
];
export const DELETE_CHECKPOINT = 'DELETE FROM rm_checkpoints WHERE name = $1';

const AFTER = '(commit_pos, prepare_pos) < ($2, $3)';
const NEWEST_FIRST = 'ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $4';
const { delivery, run, parked } = PROJECTION_TABLES;

/** $1 routine, ($2, $3) the position to continue after, $4 the page size + 1. */
export const LIST_DELIVERIES = `
  SELECT ${columnList(delivery, 'd')}, d.payload_state, d.payload_removed_at, COALESCE(r.replays, 0) AS replays
  FROM rm_deliveries d LEFT JOIN rm_delivery_replays r ON r.delivery_id = d.delivery_id
  WHERE d.routine_id = $1 AND (d.commit_pos, d.prepare_pos) < ($2, $3)
  ORDER BY d.commit_pos DESC, d.prepare_pos DESC LIMIT $4`;
/**
 * $1 routine, ($2, $3) the position the deliveries were accepted strictly after, $4 the cap. One
 * range scan of rm_deliveries_by_routine from the position on (the row value is an index
 * condition), an anti-join probe of rm_runs' primary key per row; the LIMIT stops the probes and
 * the count at `cap` waiting deliveries.
 */
export const COUNT_WAITING_DELIVERIES = `
  SELECT count(*) AS waiting FROM (
    SELECT d.run_id, d.delivery_id FROM rm_deliveries d
    WHERE d.routine_id = $1 AND (d.commit_pos, d.prepare_pos) > ($2, $3) AND (d.commit_pos, d.prepare_pos) < ($4, $5)
    ORDER BY d.commit_pos DESC, d.prepare_pos DESC LIMIT $6
  ) w
  WHERE NOT EXISTS (SELECT 1 FROM rm_runs r WHERE r.run_id = w.run_id)
    AND NOT EXISTS (SELECT 1 FROM rm_parked p WHERE p.delivery_id = w.delivery_id)`;
/** $1 the removal's state, $2 its time, $3 the ids: the first removal wins (a removed payload keeps its reason and time). */
export const REMOVE_PAYLOADS = `
  UPDATE rm_deliveries SET payload_state = $1, payload_removed_at = $2
  WHERE delivery_id = ANY($3::text[]) AND payload_state = 'kept'`;
/** $1 now (as stored times are written), $2 the limit: a range scan of rm_deliveries_payload_due. */
export const PAYLOADS_DUE = `
  SELECT delivery_id FROM rm_deliveries WHERE payload_state = 'kept' AND payload_expires_at <= $1
  ORDER BY payload_expires_at, delivery_id LIMIT $2`;
/** $1 the ids. */
export const PAYLOAD_STATES = `
  SELECT delivery_id, payload_state, payload_expires_at, payload_removed_at FROM rm_deliveries WHERE delivery_id = ANY($1::text[])`;

const CANDIDATE_CASTS = {
  deliveryIds: 'text[]',
  routineId: 'text',
  account: 'text',
  receivedAfter: 'text',
  receivedBefore: 'text',
  afterReceivedAt: 'text',
  afterDeliveryId: 'text',
  limit: 'integer',
} as const;
const candidateListings = new Map<string, CandidateListing>();
/** The erasure candidates of one selection shape; parameters numbered in order of first use, typed where used. */
export function listCandidates(shape: CandidateShape): CandidateListing {
  const key = candidateShapeKey(shape);
  let listing = candidateListings.get(key);
  if (!listing) {
    listing = candidateListing(shape, {
      param: (name, index) => `$${index + 1}::${CANDIDATE_CASTS[name]}`,
      idIn: (placeholder) => `delivery_id = ANY(${placeholder})`,
      keptByReceived: 'rm_deliveries',
    });
    candidateListings.set(key, listing);
  }
  return listing;
}

export const LIST_RUNS = `SELECT ${columnList(run)} FROM rm_runs WHERE routine_id = $1 AND ${AFTER} ${NEWEST_FIRST}`;
export const LIST_PARKED_OF_ROUTINE = `SELECT ${columnList(parked)} FROM rm_parked WHERE routine_id = $1 AND ${AFTER} ${NEWEST_FIRST}`;
/** $1 unused (NULL) so that every listing takes the same parameters. */
export const LIST_PARKED_ALL = `SELECT ${columnList(parked)} FROM rm_parked WHERE $1::text IS NULL AND ${AFTER} ${NEWEST_FIRST}`;

/** Ids follow the array order (WITH ORDINALITY … ORDER BY): the last attempt of a batch is its newest. */
export const INSERT_ATTEMPTS = `
  INSERT INTO rm_rejected_attempts (${ATTEMPT_COLUMNS.join(', ')})
  SELECT ${ATTEMPT_COLUMNS.join(', ')}
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS a(${ATTEMPT_COLUMNS.join(', ')}, n)
  ORDER BY n`;
/** For each webhook in $1: deletes up to its ($2+1)th newest id; none (fewer rows) is NULL: no delete. */
export const PRUNE_ATTEMPTS = `
  DELETE FROM rm_rejected_attempts t
  USING (
    SELECT w.webhook_id,
           (SELECT x.id FROM rm_rejected_attempts x WHERE x.webhook_id = w.webhook_id ORDER BY x.id DESC OFFSET $2 LIMIT 1) AS boundary
    FROM unnest($1::text[]) AS w(webhook_id)
  ) b
  WHERE t.webhook_id = b.webhook_id AND t.id <= b.boundary`;
export const LIST_ATTEMPTS = `
  SELECT id, ${ATTEMPT_COLUMNS.join(', ')} FROM rm_rejected_attempts
  WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`;

/** Counted per id first (one row per id: ON CONFLICT DO UPDATE may not touch a row twice), in key order against deadlocks. */
export const ADD_REPLAYS = `
  INSERT INTO rm_delivery_replays (delivery_id, replays)
  SELECT delivery_id, count(*) FROM unnest($1::text[]) AS r(delivery_id) GROUP BY delivery_id ORDER BY delivery_id
  ON CONFLICT (delivery_id) DO UPDATE SET replays = rm_delivery_replays.replays + excluded.replays`;

/** Of each class: the denied entries beyond its newest $1. */
export const TRIM_DENIED: Readonly<Record<DeniedClass, string>> = {
  named: trimDenied('named', { keep: '$1' }),
  anonymous: trimDenied('anonymous', { keep: '$1' }),
};

/**
 * Of each class, for each source address in $1: its denied entries beyond its newest $2, in one
 * statement. The boundary of each source is its ($2+1)th newest entry, read from the class's
 * (source_address, at, entry_id) index; a source with fewer rows has none (the lateral join drops
 * it) and loses nothing.
 */
export const TRIM_DENIED_OF_SOURCES: Readonly<Record<DeniedClass, string>> = {
  named: trimDeniedOfSources('named'),
  anonymous: trimDeniedOfSources('anonymous'),
};

function trimDeniedOfSources(deniedClass: DeniedClass): string {
  return `
  DELETE FROM rm_audit_entries t
  USING (
    SELECT s.source_address, b.at, b.entry_id
    FROM unnest($1::text[]) AS s(source_address)
    CROSS JOIN LATERAL (
      SELECT x.at, x.entry_id FROM rm_audit_entries x
      WHERE ${deniedOfClass(deniedClass, 'x')} AND x.source_address = s.source_address
      ORDER BY x.at DESC, x.entry_id DESC OFFSET $2 LIMIT 1
    ) b
  ) b
  WHERE ${deniedOfClass(deniedClass, 't')} AND t.source_address = b.source_address AND (t.at, t.entry_id) <= (b.at, b.entry_id)`;
}

/** The audit listing of one shape; parameters numbered in order of first use, typed where used. */
const AUDIT_CASTS = { routineId: 'text', actor: 'text', at: 'text', entryId: 'text', limit: 'integer' } as const;
const auditListings = new Map<string, AuditListing>();
export function listAudit(shape: AuditShape): AuditListing {
  const key = shapeKey(shape);
  let listing = auditListings.get(key);
  if (!listing) {
    listing = auditListing(shape, (name, index) => `$${index + 1}::${AUDIT_CASTS[name]}`);
    auditListings.set(key, listing);
  }
  return listing;
}

export interface Insert {
  readonly text: string;
  /** One array per column (an insert), or plain values and arrays (a payload removal). */
  readonly values: (string | null | readonly (string | null)[])[];
}

/**
 * One INSERT … SELECT FROM unnest(…) per table present in the batch, first occurrence of a key
 * wins. Rows whose insert reads another kind's table (an audit entry's routine, from the webhook
 * mapping) see exactly the rows before them in the batch: the batch is cut where a row read by
 * an earlier row's kind comes, and within each part the tables read are written first. A payload
 * removal cuts the batch too: it updates deliveries inserted before it, never after.
 */
export function insertChanges(changes: readonly ProjectionChange[]): Insert[] {
  const inserts: Insert[] = [];
  let part = new Map<InsertedKind, InsertedChange[]>();
  const flush = (): void => {
    for (const kind of WRITE_ORDER) {
      const batch = part.get(kind);
      if (batch) inserts.push(insertRows(kind, batch.map(changeValues)));
    }
    part = new Map();
  };
  for (const change of changes) {
    if (change.kind === 'payload_removal') {
      flush();
      inserts.push(removePayloads(change.row));
      continue;
    }
    if (WRITE_ORDER.some((reader) => part.has(reader) && kindsReadBy(reader).includes(change.kind))) flush();
    const batch = part.get(change.kind);
    if (batch) batch.push(change);
    else part.set(change.kind, [change]);
  }
  flush();
  return inserts;
}

function removePayloads(row: PayloadRemovalRow): Insert {
  return { text: REMOVE_PAYLOADS, values: [row.state, row.removedAt, row.deliveryIds] };
}

/** One statement inserting `rows` (the values of `kind`'s columns, in order) into its table. */
export function insertRows(kind: InsertedKind, rows: readonly (readonly SqlValue[])[]): Insert {
  const spec = PROJECTION_TABLES[kind];
  const values = spec.columns.map((_, index) => rows.map((row) => toParameter(row[index] ?? null)));
  return { text: insertIgnoring(spec), values };
}

function insertIgnoring(spec: ProjectionTable): string {
  const arrays = spec.columns.map((column, index) => `$${index + 1}::${column.type}[]`).join(', ');
  return `INSERT INTO ${spec.table} (${columnList(spec)})
    SELECT ${selectList(spec, 'c')} FROM unnest(${arrays}) WITH ORDINALITY AS c(${columnList(spec)}, n) ORDER BY n
    ON CONFLICT (${spec.key}) DO NOTHING`;
}

function toParameter(value: string | bigint | null): string | null {
  return typeof value === 'bigint' ? value.toString() : value;
}
