import type Database from 'better-sqlite3';
import { movePayloadsOutOfIndex } from './sqlite-payload-index.migrations';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` holds how many have run. An entry is
 * SQL, or a step that needs code (it runs in the same transaction). Append new entries, never edit
 * old ones.
 */
const MIGRATIONS: readonly (string | ((db: Database.Database) => void))[] = [
  `
  CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id  TEXT    NOT NULL,
    revision   INTEGER NOT NULL,
    event_id   TEXT    NOT NULL UNIQUE,
    type       TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    metadata   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (stream_id, revision)
  );
  CREATE TABLE checkpoints (
    name       TEXT    PRIMARY KEY,
    commit_pos INTEGER NOT NULL,
    prepare_pos INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // A stream's category (its name up to and including the first "-"; NULL without one), indexed
  // with the global order: a prefix filter on whole categories ("webhook-", "delivery-") reads
  // only those events. Virtual: computed on read, nothing to backfill.
  `
  ALTER TABLE events ADD COLUMN category TEXT
    GENERATED ALWAYS AS (CASE WHEN instr(stream_id, '-') > 0 THEN substr(stream_id, 1, instr(stream_id, '-')) END) VIRTUAL;
  CREATE INDEX events_by_category ON events (category, seq);
  `,
  // Payloads apart from the events (docs/data-lifecycle-plan.md §1–2). payload_index is the record:
  // ids and times only, so b-tree balancing may leave stale copies of its cells harmlessly; it
  // outlives the bodies. The bodies live in payloads_<bucket> tables, one per expiry hour
  // (bucket = floor(expires_at / 3,600,000)), created by the writer on first use: a body is removed
  // by a same-size zero overwrite in place (a DELETE next to live rows leaves copies in the pages'
  // free gaps) and its table dropped whole once the hour is past and none is kept. payload_buckets
  // lists those tables. Partial indexes hold kept payloads only: the sweep's due list, and the
  // scan's and reclaim's walk by bucket. (A retention change applies to later deliveries: no index
  // by webhook is needed.)
  `
  CREATE TABLE payload_index (
    key            TEXT    PRIMARY KEY,
    webhook_id     TEXT    NOT NULL,
    format         TEXT    NOT NULL,
    bucket         INTEGER NOT NULL,
    row_id         INTEGER NOT NULL,
    received_at    INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    bytes          INTEGER NOT NULL,
    removed_at     INTEGER,
    removed_reason TEXT,
    erasure_id     TEXT
  ) WITHOUT ROWID;
  CREATE INDEX payload_due ON payload_index (expires_at) WHERE removed_at IS NULL;
  CREATE INDEX payload_kept_by_bucket ON payload_index (bucket, row_id) WHERE removed_at IS NULL;
  CREATE TABLE payload_buckets (
    bucket     INTEGER PRIMARY KEY,
    dropped_at INTEGER
  );
  CREATE INDEX payload_buckets_standing ON payload_buckets (bucket) WHERE dropped_at IS NULL;
  `,
  // One b-tree written per stored payload instead of four (docs/bench/consolidation, third pass).
  // A body's row id is its expiry in ms shifted left by 21 bits, so a bucket table is in expiry
  // order whatever the retention, and the sweep reads forward from swept_to (the row up to which
  // nothing is kept). The payload's event row points at it (events.payload_row), so a payload is
  // found through the events' own stream index: its key is its stream's id after the category,
  // and payload_categories lists the categories that carry payloads. A removal is recorded in
  // payload_removals (by row id) only when it happens. payload_index goes (see the step's file).
  `
  ALTER TABLE events ADD COLUMN payload_row INTEGER;
  CREATE TABLE payload_removals (
    row_id     INTEGER PRIMARY KEY,
    removed_at INTEGER NOT NULL,
    reason     TEXT    NOT NULL,
    erasure_id TEXT
  );
  CREATE TABLE payload_categories (category TEXT PRIMARY KEY) WITHOUT ROWID;
  ALTER TABLE payload_buckets ADD COLUMN swept_to INTEGER NOT NULL DEFAULT 0;
  `,
  movePayloadsOutOfIndex,
  eventsWithoutAutoincrement,
];

/**
 * Step 6: a store that holds no event yet gets its events table without AUTOINCREMENT. Its `seq`
 * stays the rowid, one more than the highest (events are never deleted, so none is ever reused,
 * and a rolled-back insert frees its number under either form alike); what goes is the
 * sqlite_sequence row AUTOINCREMENT rewrote with every append: one page less in every commit
 * (docs/bench/consolidation, twelfth pass). A store that holds events keeps its table as it is:
 * rebuilding it would take a start-up as long as its history.
 */
function eventsWithoutAutoincrement(db: Database.Database): void {
  if (db.prepare('SELECT 1 FROM events LIMIT 1').get() !== undefined) return;
  // The table as it stands (the columns later steps added included) and its own indexes, made again
  // from their stored definitions with the one keyword taken out.
  const definitions = db.prepare<[], { type: string; sql: string }>(
    "SELECT type, sql FROM sqlite_schema WHERE tbl_name = 'events' AND sql IS NOT NULL ORDER BY type = 'index'",
  );
  const [table, ...indexes] = definitions.all();
  if (table?.type !== 'table' || !/ AUTOINCREMENT\b/.test(table.sql)) return;
  db.exec('DROP TABLE events');
  db.exec(table.sql.replace(/ AUTOINCREMENT\b/, ''));
  for (const index of indexes) db.exec(index.sql);
  db.exec("DELETE FROM sqlite_sequence WHERE name = 'events'");
}

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to date (or up to `target`: tests make older files) in one IMMEDIATE
 * transaction (safe when two processes start at once).
 */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): void {
  db.transaction(() => {
    const current = Number(db.pragma('user_version', { simple: true }));
    if (current > SCHEMA_VERSION) {
      throw new Error(`event store schema version ${current} is newer than this build supports (${SCHEMA_VERSION})`);
    }
    for (let version = current; version < target; version += 1) {
      const step = MIGRATIONS[version];
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    if (current < target) db.pragma(`user_version = ${target}`);
  }).immediate();
}

/** For a connection that must not migrate: the file's schema is this build's. */
export function assertCurrentSchema(db: Database.Database): void {
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current !== SCHEMA_VERSION) throw new Error(`event store schema version is ${current}, this build needs ${SCHEMA_VERSION}`);
}
