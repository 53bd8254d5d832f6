import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` holds how many have run.
 * Append new entries, never edit old ones.
 */
const MIGRATIONS: readonly string[] = [
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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema up to date in one IMMEDIATE transaction (safe when two processes start at once). */
export function migrate(db: Database.Database): void {
  db.transaction(() => {
    const current = Number(db.pragma('user_version', { simple: true }));
    if (current > SCHEMA_VERSION) {
      throw new Error(`event store schema version ${current} is newer than this build supports (${SCHEMA_VERSION})`);
    }
    for (let version = current; version < SCHEMA_VERSION; version += 1) {
      db.exec(MIGRATIONS[version]);
    }
    if (current !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** For a connection that must not migrate: the file's schema is this build's. */
export function assertCurrentSchema(db: Database.Database): void {
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current !== SCHEMA_VERSION) throw new Error(`event store schema version is ${current}, this build needs ${SCHEMA_VERSION}`);
}
