import type { GlobalPosition } from '@wts/event-store';
import type { AttemptRow, AuditActor, AuditRow, DeliveryListRow, PayloadState, RunRow, TriggerAccountRow } from './read-model.port';

/**
 * The tables' rows as the adapters read them back, and the port's rows made from them: the read
 * side of the mapping in read-model.records.ts, shared by both adapters for the same reason.
 * Integers come back as bigint from SQLite and as decimal strings from PostgreSQL (int8).
 */

type DbInteger = bigint | string | number;

export interface Positioned {
  readonly commit_pos: DbInteger;
  readonly prepare_pos: DbInteger;
}

export interface DeliveryRecord extends Positioned {
  readonly delivery_id: string;
  readonly routine_id: string;
  readonly webhook_id: string;
  readonly run_id: string;
  readonly received_at: string;
  readonly trigger_account_id: string;
  readonly trigger_account_email: string;
  readonly content_type: string;
  readonly idempotency_key: string | null;
  readonly payload_state: string;
  readonly payload_expires_at: string | null;
  readonly payload_removed_at: string | null;
  readonly replays: DbInteger;
}

export interface RunRecord extends Positioned {
  readonly run_id: string;
  readonly routine_id: string;
  readonly webhook_id: string;
  readonly delivery_id: string;
  readonly trigger_account_id: string;
  readonly trigger_account_email: string;
  readonly status: string;
  readonly created_at: string;
}

/** A listing's row as its SELECT reads it: the row, and the position its cursor is made of. */
export type PositionedRow<T> = T & Positioned;

export interface AttemptRecord {
  readonly id: DbInteger;
  readonly webhook_id: string;
  readonly reason: string;
  readonly at: string;
  readonly source_address: string;
}

export interface AuditRecord {
  readonly entry_id: string;
  readonly at: string;
  readonly actor_kind: string | null;
  readonly actor_subject: string | null;
  readonly actor_display: string | null;
  readonly action: string;
  readonly target_type: string;
  readonly target_id: string | null;
  readonly routine_id: string | null;
  readonly webhook_id: string | null;
  readonly outcome: string;
  readonly trace_id: string | null;
  readonly detail: string | null;
  readonly source_address: string | null;
  readonly actor_display_verified: DbInteger | null;
}

export type CheckpointRecord = Positioned;

export function positionOf(record: Positioned): GlobalPosition {
  return { commit: BigInt(record.commit_pos), prepare: BigInt(record.prepare_pos) };
}

/** The trigger account's two columns, nested as the rows (and the admin API) carry it. */
function triggerAccountOf(r: { readonly trigger_account_id: string; readonly trigger_account_email: string }): TriggerAccountRow {
  return { account_id: r.trigger_account_id, email: r.trigger_account_email };
}

/** The table's CHECK constraint keeps `payload_state` to the port's values; `replays` comes back as an integer of the database's. */
export function toDeliveryRow(r: DeliveryRecord): DeliveryListRow {
  return {
    delivery_id: r.delivery_id,
    routine_id: r.routine_id,
    webhook_id: r.webhook_id,
    run_id: r.run_id,
    received_at: r.received_at,
    trigger_account: triggerAccountOf(r),
    content_type: r.content_type,
    idempotency_key: r.idempotency_key,
    payload_expires_at: r.payload_expires_at,
    payload_state: r.payload_state as PayloadState,
    payload_removed_at: r.payload_removed_at,
    replays: Number(r.replays),
  };
}

/** The run's columns, its trigger account nested (in the place the admin API lists it). */
export function toRunRow(r: RunRecord): RunRow {
  return {
    run_id: r.run_id,
    routine_id: r.routine_id,
    webhook_id: r.webhook_id,
    delivery_id: r.delivery_id,
    trigger_account: triggerAccountOf(r),
    status: r.status,
    created_at: r.created_at,
  };
}

/** The row without its position: the columns before it, in the SELECT's order (the listing's fields are its columns). */
export function withoutPosition<T>(record: PositionedRow<T>): T {
  const { commit_pos: _commit, prepare_pos: _prepare, ...row } = record;
  return row as T;
}

export function toAttemptRow(r: AttemptRecord): AttemptRow {
  return { webhookId: r.webhook_id, reason: r.reason, at: r.at, sourceAddress: r.source_address };
}

/** The tables' CHECK constraints keep `actor_kind` and `outcome` to the port's values. */
export function toAuditRow(r: AuditRecord): AuditRow {
  const actor: AuditActor | null =
    r.actor_kind === null || r.actor_subject === null || r.actor_display === null
      ? null
      : {
          kind: r.actor_kind as AuditActor['kind'],
          subject: r.actor_subject,
          display: r.actor_display,
          displayVerified: Number(r.actor_display_verified) === 1,
        };
  return {
    entryId: r.entry_id,
    at: r.at,
    actor,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    routineId: r.routine_id,
    webhookId: r.webhook_id,
    outcome: r.outcome as AuditRow['outcome'],
    traceId: r.trace_id,
    detail: r.detail,
    sourceAddress: r.source_address,
  };
}
