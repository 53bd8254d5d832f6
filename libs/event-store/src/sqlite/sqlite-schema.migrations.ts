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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** A payload body table holds the payloads expiring within one hour: dropped whole once that hour is past. */
export const PAYLOAD_BUCKET_MS = 3_600_000;

/** The bucket (expiry hour) of a payload; expiresAt is a non-negative integer (epoch ms). */
export function payloadBucketOf(expiresAt: number): number {
  return Math.floor(expiresAt / PAYLOAD_BUCKET_MS);
}

/** The body table of a bucket: a name built from an integer only, so it is safe to splice into SQL. */
export function payloadTable(bucket: number | bigint): string {
  if (typeof bucket === 'number' && !Number.isSafeInteger(bucket)) throw new RangeError(`not a payload bucket: ${bucket}`);
  if (bucket < 0) throw new RangeError(`not a payload bucket: ${bucket}`);
  return `payloads_${bucket}`;
}

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
