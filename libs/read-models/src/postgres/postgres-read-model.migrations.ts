import type { ClientBase } from 'pg';
import {
  AUDIT_ENTRY_INDEXES,
  deniedSourceMigration,
  KEPT_PAYLOAD_INDEXES,
  ONE_KEPT_SELECTION_INDEX,
  PARKED_BY_DELIVERY_MIGRATION,
  verifiedDisplayMigration,
} from '../read-model.migrations';

/**
 * Schema migrations, applied in order; `rm_schema_migrations` records which have run. Append new
 * entries, never edit old ones. Positions are BIGINT (int8), timestamps `text`: they are returned
 * exactly as written (an ISO string with milliseconds and Z), with no time-zone round trip.
 * The indexes make every listing an index range scan, as in the SQLite adapter.
 */
export const READ_MODEL_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE rm_deliveries (
    delivery_id           text   PRIMARY KEY,
    routine_id            text   NOT NULL,
    webhook_id            text   NOT NULL,
    run_id                text   NOT NULL,
    received_at           text   NOT NULL,
    trigger_account_id    text   NOT NULL,
    trigger_account_email text   NOT NULL,
    content_type          text   NOT NULL,
    idempotency_key       text,
    commit_pos            bigint NOT NULL,
    prepare_pos           bigint NOT NULL
  );
  CREATE INDEX rm_deliveries_by_routine ON rm_deliveries (routine_id, commit_pos, prepare_pos);

  CREATE TABLE rm_runs (
    run_id                text   PRIMARY KEY,
    routine_id            text   NOT NULL,
    webhook_id            text   NOT NULL,
    delivery_id           text   NOT NULL,
    trigger_account_id    text   NOT NULL,
    trigger_account_email text   NOT NULL,
    status                text   NOT NULL,
    created_at            text   NOT NULL,
    commit_pos            bigint NOT NULL,
    prepare_pos           bigint NOT NULL
  );
  CREATE INDEX rm_runs_by_routine ON rm_runs (routine_id, commit_pos, prepare_pos);

  CREATE TABLE rm_parked (
    source_event_id text   PRIMARY KEY,
    source_stream   text   NOT NULL,
    source_type     text   NOT NULL,
    delivery_id     text,
    routine_id      text,
    error           text   NOT NULL,
    parked_at       text   NOT NULL,
    commit_pos      bigint NOT NULL,
    prepare_pos     bigint NOT NULL
  );
  CREATE INDEX rm_parked_by_position ON rm_parked (commit_pos, prepare_pos);
  CREATE INDEX rm_parked_by_routine ON rm_parked (routine_id, commit_pos, prepare_pos);

  CREATE TABLE rm_delivery_replays (
    delivery_id text    PRIMARY KEY,
    replays     integer NOT NULL
  );

  CREATE TABLE rm_rejected_attempts (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id     text   NOT NULL,
    reason         text   NOT NULL,
    at             text   NOT NULL,
    source_address text   NOT NULL
  );
  CREATE INDEX rm_rejected_attempts_by_webhook ON rm_rejected_attempts (webhook_id, id);

  CREATE TABLE rm_checkpoints (
    name        text   PRIMARY KEY,
    commit_pos  bigint NOT NULL,
    prepare_pos bigint NOT NULL
  );
  `,
  // 2: the audit trail. Projected entries (outcome succeeded) and denied attempts in one table;
  // the webhook -> routine mapping fills routine_id of webhook entries that name only their webhook.
  // at and entry_id compare byte by byte (COLLATE "C"), as in SQLite: the listing's order and its
  // cursor do not depend on the database's locale. The display keeps the default collation, whose
  // lower() folds more than ASCII.
  `
  CREATE TABLE rm_webhook_routines (
    webhook_id text PRIMARY KEY,
    routine_id text NOT NULL
  );

  CREATE TABLE rm_audit_entries (
    entry_id      text COLLATE "C" PRIMARY KEY,
    at            text COLLATE "C" NOT NULL,
    actor_kind    text CHECK (actor_kind IN ('oidc', 'api_key', 'bootstrap')),
    actor_subject text,
    actor_display text,
    action        text NOT NULL,
    target_type   text NOT NULL,
    target_id     text,
    routine_id    text,
    webhook_id    text,
    outcome       text NOT NULL CHECK (outcome IN ('succeeded', 'denied')),
    trace_id      text,
    detail        text,
    CHECK ((actor_kind IS NULL) = (actor_subject IS NULL) AND (actor_kind IS NULL) = (actor_display IS NULL))
  );
${AUDIT_ENTRY_INDEXES}  `,
  // 3: the held-deliveries count leaves parked deliveries out (read-model.migrations.ts).
  PARKED_BY_DELIVERY_MIGRATION,
  // 4: whether the actor's display is verified (read-model.migrations.ts).
  verifiedDisplayMigration('smallint'),
  // 5: denied entries keep their source address, kept per class and per source (read-model.migrations.ts).
  deniedSourceMigration('text'),
  // 6: each delivery's payload state (kept, or removed as expired or erased, and when), its expiry,
  // and the trigger account's email folded as the account catalog folds it (written by the
  // projection; rows from before are folded by lower(), the same for every ASCII address).
  // Partial indexes of the kept rows serve the retention sweep (by expiry) and an erasure's
  // selection (by receipt time, account or routine), and shrink as payloads go.
  `
  ALTER TABLE rm_deliveries ADD COLUMN payload_state text NOT NULL DEFAULT 'kept'
    CHECK (payload_state IN ('kept', 'expired', 'erased'));
  ALTER TABLE rm_deliveries ADD COLUMN payload_expires_at text;
  ALTER TABLE rm_deliveries ADD COLUMN payload_removed_at text;
  ALTER TABLE rm_deliveries ADD COLUMN trigger_account_email_folded text;
  UPDATE rm_deliveries SET trigger_account_email_folded = lower(trigger_account_email);
  ALTER TABLE rm_deliveries ALTER COLUMN trigger_account_email_folded SET NOT NULL;
${KEPT_PAYLOAD_INDEXES}  `,
  // 7: per-webhook counts by hour and outcome (hourly-activity.ts): the key serves a webhook's
  // chart, the index by hour the deletion of aged-out hours.
  `
  CREATE TABLE rm_hourly_activity (
    webhook_id text   NOT NULL,
    hour_start text   NOT NULL,
    outcome    text   NOT NULL,
    count      bigint NOT NULL CHECK (count > 0),
    PRIMARY KEY (webhook_id, hour_start, outcome)
  );
  CREATE INDEX rm_hourly_activity_by_hour ON rm_hourly_activity (hour_start);
  `,
  // 8: one partial index of the kept rows for an erasure's selection (read-model.migrations.ts).
  ONE_KEPT_SELECTION_INDEX,
];

export const READ_MODEL_SCHEMA_VERSION = READ_MODEL_MIGRATIONS.length;

/** Serialises concurrent starts (any schema: migrations are rare and short). */
const MIGRATION_LOCK_KEY = '7234102986150871041';

/**
 * Creates `schema` when missing and brings it up to date, in one transaction under a
 * transaction-scoped advisory lock: replicas starting together wait for the first one, then
 * find nothing left to do. The connection's search_path is already `schema`.
 */
export async function migrate(client: ClientBase, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    // Checked first: CREATE SCHEMA IF NOT EXISTS still needs the CREATE privilege on the database.
    const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (existing.rowCount === 0) await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS rm_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rm_schema_migrations');
    const current = rows[0]?.version ?? 0;
    if (current > READ_MODEL_SCHEMA_VERSION) {
      throw new Error(`read-model schema version ${current} is newer than this build supports (${READ_MODEL_SCHEMA_VERSION})`);
    }
    for (let version = current; version < READ_MODEL_SCHEMA_VERSION; version += 1) {
      await client.query(READ_MODEL_MIGRATIONS[version] ?? '');
      await client.query('INSERT INTO rm_schema_migrations (version) VALUES ($1)', [version + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
