/**
 * The parts of the read-model migrations that read the same in both dialects (PostgreSQL and
 * SQLite): indexes and statements written once, each dialect giving only its column types. Like
 * the migrations, they are never edited: a database already migrated ran them as they read here.
 */

/** Migration 2's indexes of the audit trail: every listing of it an index range scan. */
export const AUDIT_ENTRY_INDEXES = `  CREATE INDEX rm_audit_entries_by_time ON rm_audit_entries (at, entry_id);
  CREATE INDEX rm_audit_entries_by_routine ON rm_audit_entries (routine_id, at, entry_id);
  CREATE INDEX rm_audit_entries_by_subject ON rm_audit_entries (actor_subject, at, entry_id);
  CREATE INDEX rm_audit_entries_by_display ON rm_audit_entries (lower(actor_display), at, entry_id);
  -- Trimming the denied entries to the newest N reads and deletes only them.
  CREATE INDEX rm_audit_entries_denied ON rm_audit_entries (at, entry_id) WHERE outcome = 'denied';
`;

/** Migration 3: the held-deliveries count leaves parked deliveries out (a probe per delivery). */
export const PARKED_BY_DELIVERY_MIGRATION = `
  CREATE INDEX rm_parked_by_delivery ON rm_parked (delivery_id);
  `;

/**
 * Migration 4: whether the actor's display is verified (1) or only claimed (0; null: no actor). The actor
 * filter matches a display only when it is verified, through a partial index of those alone.
 * Entries written before: an OIDC display was never checked (0), a key's name or the bootstrap's is ours (1).
 */
export function verifiedDisplayMigration(flagType: string): string {
  return `
  ALTER TABLE rm_audit_entries ADD COLUMN actor_display_verified ${flagType} CHECK (actor_display_verified IN (0, 1));
  UPDATE rm_audit_entries SET actor_display_verified = CASE WHEN actor_kind = 'oidc' THEN 0 ELSE 1 END WHERE actor_kind IS NOT NULL;
  DROP INDEX rm_audit_entries_by_display;
  CREATE INDEX rm_audit_entries_by_verified_display ON rm_audit_entries (lower(actor_display), at, entry_id)
    WHERE actor_display_verified = 1;
  `;
}

/**
 * Migration 5: denied entries keep their source address, and are kept per class (the credential named
 * someone, or nobody) and per source within a class: the trims read these indexes only
 * (denied-access.policy.ts; the predicates are written there exactly as here).
 */
export function deniedSourceMigration(textType: string): string {
  return `
  ALTER TABLE rm_audit_entries ADD COLUMN source_address ${textType};
  DROP INDEX rm_audit_entries_denied;
  CREATE INDEX rm_audit_denied_anonymous ON rm_audit_entries (at, entry_id) WHERE outcome = 'denied' AND actor_kind IS NULL;
  CREATE INDEX rm_audit_denied_named ON rm_audit_entries (at, entry_id) WHERE outcome = 'denied' AND actor_kind IS NOT NULL;
  CREATE INDEX rm_audit_denied_anonymous_by_source ON rm_audit_entries (source_address, at, entry_id)
    WHERE outcome = 'denied' AND actor_kind IS NULL;
  CREATE INDEX rm_audit_denied_named_by_source ON rm_audit_entries (source_address, at, entry_id)
    WHERE outcome = 'denied' AND actor_kind IS NOT NULL;
  `;
}

/** Migration 6's partial indexes of the kept payloads: the retention sweep's and an erasure's selections. */
export const KEPT_PAYLOAD_INDEXES = `  CREATE INDEX rm_deliveries_payload_due ON rm_deliveries (payload_expires_at, delivery_id) WHERE payload_state = 'kept';
  CREATE INDEX rm_deliveries_kept_by_received ON rm_deliveries (received_at, delivery_id) WHERE payload_state = 'kept';
  CREATE INDEX rm_deliveries_kept_by_account ON rm_deliveries (trigger_account_email_folded, received_at, delivery_id)
    WHERE payload_state = 'kept';
  CREATE INDEX rm_deliveries_kept_by_routine ON rm_deliveries (routine_id, received_at, delivery_id) WHERE payload_state = 'kept';
`;

/**
 * Migration 8: one partial index of the kept payloads for an erasure's selection instead of three:
 * the routine and the account are tested on the rows of a window of kept_by_received
 * (payload-selection.ts). The two dropped cost every delivery 216 bytes and two b-tree writes while
 * its payload was kept (docs/bench/bytes-at-rest.md).
 */
export const ONE_KEPT_SELECTION_INDEX = `
  DROP INDEX rm_deliveries_kept_by_account;
  DROP INDEX rm_deliveries_kept_by_routine;
  `;
