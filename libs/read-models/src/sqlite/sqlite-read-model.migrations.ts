import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` holds how many have run. Append new
 * entries, never edit old ones. Tables are STRICT so that a wrongly typed value fails instead of
 * being stored as something else, and listings are index range scans: (routine_id, position) for
 * the per-routine listings, (position) for all parked rows, (webhook_id, id) for attempts.
 * Table names carry an `rm_` prefix: the file may one day share a database with other tables.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE rm_deliveries (
    delivery_id           TEXT    NOT NULL PRIMARY KEY,
    routine_id            TEXT    NOT NULL,
    webhook_id            TEXT    NOT NULL,
    run_id                TEXT    NOT NULL,
    received_at           TEXT    NOT NULL,
    trigger_account_id    TEXT    NOT NULL,
    trigger_account_email TEXT    NOT NULL,
    content_type          TEXT    NOT NULL,
    idempotency_key       TEXT,
    commit_pos            INTEGER NOT NULL,
    prepare_pos           INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX rm_deliveries_by_routine ON rm_deliveries (routine_id, commit_pos, prepare_pos);

  CREATE TABLE rm_runs (
    run_id                TEXT    NOT NULL PRIMARY KEY,
    routine_id            TEXT    NOT NULL,
    webhook_id            TEXT    NOT NULL,
    delivery_id           TEXT    NOT NULL,
    trigger_account_id    TEXT    NOT NULL,
    trigger_account_email TEXT    NOT NULL,
    status                TEXT    NOT NULL,
    created_at            TEXT    NOT NULL,
    commit_pos            INTEGER NOT NULL,
    prepare_pos           INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX rm_runs_by_routine ON rm_runs (routine_id, commit_pos, prepare_pos);

  CREATE TABLE rm_parked (
    source_event_id TEXT    NOT NULL PRIMARY KEY,
    source_stream   TEXT    NOT NULL,
    source_type     TEXT    NOT NULL,
    delivery_id     TEXT,
    routine_id      TEXT,
    error           TEXT    NOT NULL,
    parked_at       TEXT    NOT NULL,
    commit_pos      INTEGER NOT NULL,
    prepare_pos     INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX rm_parked_by_position ON rm_parked (commit_pos, prepare_pos);
  CREATE INDEX rm_parked_by_routine ON rm_parked (routine_id, commit_pos, prepare_pos);

  CREATE TABLE rm_delivery_replays (
    delivery_id TEXT    NOT NULL PRIMARY KEY,
    replays     INTEGER NOT NULL
  ) STRICT;

  -- AUTOINCREMENT: ids are never reused, so "after this id" stays a valid cursor after pruning.
  CREATE TABLE rm_rejected_attempts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id     TEXT    NOT NULL,
    reason         TEXT    NOT NULL,
    at             TEXT    NOT NULL,
    source_address TEXT    NOT NULL
  ) STRICT;
  CREATE INDEX rm_rejected_attempts_by_webhook ON rm_rejected_attempts (webhook_id, id);

  CREATE TABLE rm_checkpoints (
    name        TEXT    NOT NULL PRIMARY KEY,
    commit_pos  INTEGER NOT NULL,
    prepare_pos INTEGER NOT NULL
  ) STRICT;
  `,
];

export const READ_MODEL_SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema up to date in one IMMEDIATE transaction (safe when two processes start at once). */
export function migrate(db: Database.Database): void {
  db.transaction(() => {
    const current = Number(db.pragma('user_version', { simple: true }));
    if (current > READ_MODEL_SCHEMA_VERSION) {
      throw new Error(`read-model schema version ${current} is newer than this build supports (${READ_MODEL_SCHEMA_VERSION})`);
    }
    for (let version = current; version < READ_MODEL_SCHEMA_VERSION; version += 1) {
      db.exec(MIGRATIONS[version] ?? '');
    }
    if (current !== READ_MODEL_SCHEMA_VERSION) db.pragma(`user_version = ${READ_MODEL_SCHEMA_VERSION}`);
  }).immediate();
}
