import type { ProjectionChange } from '../read-model.port';
import { ATTEMPT_COLUMNS, PROJECTION_TABLES, changeValues, columnList, type ProjectionTable } from '../read-model.records';

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

export const RESET_STATEMENTS = ['DELETE FROM rm_deliveries', 'DELETE FROM rm_runs', 'DELETE FROM rm_parked'];
export const DELETE_CHECKPOINT = 'DELETE FROM rm_checkpoints WHERE name = $1';

const AFTER = '(commit_pos, prepare_pos) < ($2, $3)';
const NEWEST_FIRST = 'ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $4';
const { delivery, run, parked } = PROJECTION_TABLES;

/** $1 routine, ($2, $3) the position to continue after, $4 the page size + 1. */
export const LIST_DELIVERIES = `
  SELECT ${columnList(delivery, 'd')}, COALESCE(r.replays, 0) AS replays
  FROM rm_deliveries d LEFT JOIN rm_delivery_replays r ON r.delivery_id = d.delivery_id
  WHERE d.routine_id = $1 AND (d.commit_pos, d.prepare_pos) < ($2, $3)
  ORDER BY d.commit_pos DESC, d.prepare_pos DESC LIMIT $4`;
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

/** One INSERT … SELECT FROM unnest(…) per table present in the batch, first occurrence of a key wins. */
export function insertChanges(changes: readonly ProjectionChange[]): { text: string; values: (string | null)[][] }[] {
  const byKind = new Map<ProjectionChange['kind'], ProjectionChange[]>();
  for (const change of changes) {
    const batch = byKind.get(change.kind);
    if (batch) batch.push(change);
    else byKind.set(change.kind, [change]);
  }
  return [...byKind].map(([kind, batch]) => {
    const spec = PROJECTION_TABLES[kind];
    const rows = batch.map(changeValues);
    const values = spec.columns.map((_, index) => rows.map((row) => toParameter(row[index] ?? null)));
    return { text: insertIgnoring(spec), values };
  });
}

function insertIgnoring(spec: ProjectionTable): string {
  const arrays = spec.columns.map((column, index) => `$${index + 1}::${column.type}[]`).join(', ');
  return `INSERT INTO ${spec.table} (${columnList(spec)})
    SELECT ${columnList(spec)} FROM unnest(${arrays}) WITH ORDINALITY AS c(${columnList(spec)}, n) ORDER BY n
    ON CONFLICT (${spec.key}) DO NOTHING`;
}

function toParameter(value: string | bigint | null): string | null {
  return typeof value === 'bigint' ? value.toString() : value;
}
