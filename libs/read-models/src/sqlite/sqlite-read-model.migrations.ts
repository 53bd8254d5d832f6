import type Database from 'better-sqlite3';
import { foldAccountEmail } from '../read-model.records';
import {
  AUDIT_ENTRY_INDEXES,
  deniedSourceMigration,
  KEPT_PAYLOAD_INDEXES,
  ONE_KEPT_SELECTION_INDEX,
  PARKED_BY_DELIVERY_MIGRATION,
  verifiedDisplayMigration,
} from '../read-model.migrations';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` holds how many have run. Append new
 * entries, never edit old ones. Tables are STRICT so that a wrongly typed value fails instead of
 * being stored as something else, and listings are index range scans: (routine_id, position) for
 * the per-routine listings, (position) for all parked rows, (webhook_id, id) for attempts,
 * (at, entry_id) behind the routine, the actor's subject or verified lower(display) for the audit trail.
 * Table names carry an `rm_` prefix: the file may one day share a database with other tables.
 */
export const READ_MODEL_MIGRATIONS: readonly string[] = [
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
  // 2: the audit trail. Projected entries (outcome succeeded) and denied attempts in one table;
  // the webhook -> routine mapping fills routine_id of webhook entries that name only their webhook.
  `
  CREATE TABLE rm_webhook_routines (
    webhook_id TEXT NOT NULL PRIMARY KEY,
    routine_id TEXT NOT NULL
  ) STRICT;

  CREATE TABLE rm_audit_entries (
    entry_id      TEXT NOT NULL PRIMARY KEY,
    at            TEXT NOT NULL,
    actor_kind    TEXT CHECK (actor_kind IN ('oidc', 'api_key', 'bootstrap')),
    actor_subject TEXT,
    actor_display TEXT,
    action        TEXT NOT NULL,
    target_type   TEXT NOT NULL,
    target_id     TEXT,
    routine_id    TEXT,
    webhook_id    TEXT,
    outcome       TEXT NOT NULL CHECK (outcome IN ('succeeded', 'denied')),
    trace_id      TEXT,
    detail        TEXT,
    CHECK ((actor_kind IS NULL) = (actor_subject IS NULL) AND (actor_kind IS NULL) = (actor_display IS NULL))
  ) STRICT;
${AUDIT_ENTRY_INDEXES}  `,
  // 3: the held-deliveries count leaves parked deliveries out (read-model.migrations.ts).
  PARKED_BY_DELIVERY_MIGRATION,
  // 4: whether the actor's display is verified (read-model.migrations.ts).
  verifiedDisplayMigration('INTEGER'),
  // 5: denied entries keep their source address, kept per class and per source (read-model.migrations.ts).
  deniedSourceMigration('TEXT'),
  // 6: each delivery's payload state (kept, or removed as expired or erased, and when), its expiry,
  // and the trigger account's email folded as the account catalog folds it (wts_fold, registered
  // by migrate: SQLite's lower() folds ASCII only). Partial indexes of the kept rows serve the
  // retention sweep (by expiry) and an erasure's selection (by receipt time, account or routine),
  // and shrink as payloads go.
  `
  ALTER TABLE rm_deliveries ADD COLUMN payload_state TEXT NOT NULL DEFAULT 'kept'
    CHECK (payload_state IN ('kept', 'expired', 'erased'));
  ALTER TABLE rm_deliveries ADD COLUMN payload_expires_at TEXT;
  ALTER TABLE rm_deliveries ADD COLUMN payload_removed_at TEXT;
  ALTER TABLE rm_deliveries ADD COLUMN trigger_account_email_folded TEXT NOT NULL DEFAULT '';
  UPDATE rm_deliveries SET trigger_account_email_folded = wts_fold(trigger_account_email);
${KEPT_PAYLOAD_INDEXES}  `,
  // 7: per-webhook counts by hour and outcome (hourly-activity.ts): the key serves a webhook's
  // chart, the index by hour the deletion of aged-out hours.
  `
  CREATE TABLE rm_hourly_activity (
    webhook_id TEXT    NOT NULL,
    hour_start TEXT    NOT NULL,
    outcome    TEXT    NOT NULL,
    count      INTEGER NOT NULL CHECK (count > 0),
    PRIMARY KEY (webhook_id, hour_start, outcome)
  ) STRICT;
  CREATE INDEX rm_hourly_activity_by_hour ON rm_hourly_activity (hour_start);
  `,
  // 8: one partial index of the kept rows for an erasure's selection (read-model.migrations.ts).
  ONE_KEPT_SELECTION_INDEX,
];

export const READ_MODEL_SCHEMA_VERSION = READ_MODEL_MIGRATIONS.length;

/** Brings the schema up to date in one IMMEDIATE transaction (safe when two processes start at once). */
export function migrate(db: Database.Database): void {
  // Used by migration 6 only, on this connection (the schema never refers to it).
  db.function('wts_fold', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? foldAccountEmail(value) : value));
  db.transaction(() => {
    const current = Number(db.pragma('user_version', { simple: true }));
    if (current > READ_MODEL_SCHEMA_VERSION) {
      throw new Error(`read-model schema version ${current} is newer than this build supports (${READ_MODEL_SCHEMA_VERSION})`);
    }
    for (let version = current; version < READ_MODEL_SCHEMA_VERSION; version += 1) {
      db.exec(READ_MODEL_MIGRATIONS[version] ?? '');
    }
    if (current !== READ_MODEL_SCHEMA_VERSION) db.pragma(`user_version = ${READ_MODEL_SCHEMA_VERSION}`);
  }).immediate();
}
