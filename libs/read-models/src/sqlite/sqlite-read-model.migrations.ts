import type Database from 'better-sqlite3';
import { foldAccountEmail } from '../read-model.records';

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
  CREATE INDEX rm_audit_entries_by_time ON rm_audit_entries (at, entry_id);
  CREATE INDEX rm_audit_entries_by_routine ON rm_audit_entries (routine_id, at, entry_id);
  CREATE INDEX rm_audit_entries_by_subject ON rm_audit_entries (actor_subject, at, entry_id);
  CREATE INDEX rm_audit_entries_by_display ON rm_audit_entries (lower(actor_display), at, entry_id);
  -- Trimming the denied entries to the newest N reads and deletes only them.
  CREATE INDEX rm_audit_entries_denied ON rm_audit_entries (at, entry_id) WHERE outcome = 'denied';
  `,
  // 3: the held-deliveries count leaves parked deliveries out (a probe per delivery).
  `
  CREATE INDEX rm_parked_by_delivery ON rm_parked (delivery_id);
  `,
  // 4: whether the actor's display is verified (1) or only claimed (0; null: no actor). The actor
  // filter matches a display only when it is verified, through a partial index of those alone.
  // Entries written before: an OIDC display was never checked (0), a key's name or the bootstrap's is ours (1).
  `
  ALTER TABLE rm_audit_entries ADD COLUMN actor_display_verified INTEGER CHECK (actor_display_verified IN (0, 1));
  UPDATE rm_audit_entries SET actor_display_verified = CASE WHEN actor_kind = 'oidc' THEN 0 ELSE 1 END WHERE actor_kind IS NOT NULL;
  DROP INDEX rm_audit_entries_by_display;
  CREATE INDEX rm_audit_entries_by_verified_display ON rm_audit_entries (lower(actor_display), at, entry_id)
    WHERE actor_display_verified = 1;
  `,
  // 5: denied entries keep their source address, and are kept per class (the credential named
  // someone, or nobody) and per source within a class: the trims read these indexes only
  // (denied-access.retention.ts; the predicates are written there exactly as here).
  `
  ALTER TABLE rm_audit_entries ADD COLUMN source_address TEXT;
  DROP INDEX rm_audit_entries_denied;
  CREATE INDEX rm_audit_denied_anonymous ON rm_audit_entries (at, entry_id) WHERE outcome = 'denied' AND actor_kind IS NULL;
  CREATE INDEX rm_audit_denied_named ON rm_audit_entries (at, entry_id) WHERE outcome = 'denied' AND actor_kind IS NOT NULL;
  CREATE INDEX rm_audit_denied_anonymous_by_source ON rm_audit_entries (source_address, at, entry_id)
    WHERE outcome = 'denied' AND actor_kind IS NULL;
  CREATE INDEX rm_audit_denied_named_by_source ON rm_audit_entries (source_address, at, entry_id)
    WHERE outcome = 'denied' AND actor_kind IS NOT NULL;
  `,
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
  CREATE INDEX rm_deliveries_payload_due ON rm_deliveries (payload_expires_at, delivery_id) WHERE payload_state = 'kept';
  CREATE INDEX rm_deliveries_kept_by_received ON rm_deliveries (received_at, delivery_id) WHERE payload_state = 'kept';
  CREATE INDEX rm_deliveries_kept_by_account ON rm_deliveries (trigger_account_email_folded, received_at, delivery_id)
    WHERE payload_state = 'kept';
  CREATE INDEX rm_deliveries_kept_by_routine ON rm_deliveries (routine_id, received_at, delivery_id) WHERE payload_state = 'kept';
  `,
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
