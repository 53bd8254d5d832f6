import type { GlobalPosition } from '@wts/event-store';
import type { AttemptRow, AuditActor, AuditRow, DeliveryListRow, ParkedRow, PayloadState, RunRow } from './read-model.port';

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

export interface ParkedRecord extends Positioned {
  readonly source_event_id: string;
  readonly source_stream: string;
  readonly source_type: string;
  readonly delivery_id: string | null;
  readonly routine_id: string | null;
  readonly error: string;
  readonly parked_at: string;
}

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

/** The table's CHECK constraint keeps `payload_state` to the port's values. */
export function toDeliveryRow(r: DeliveryRecord): DeliveryListRow {
  return {
    deliveryId: r.delivery_id,
    routineId: r.routine_id,
    webhookId: r.webhook_id,
    runId: r.run_id,
    receivedAt: r.received_at,
    triggerAccount: { accountId: r.trigger_account_id, email: r.trigger_account_email },
    contentType: r.content_type,
    idempotencyKey: r.idempotency_key,
    payloadExpiresAt: r.payload_expires_at,
    payloadState: r.payload_state as PayloadState,
    payloadRemovedAt: r.payload_removed_at,
    replays: Number(r.replays),
  };
}

export function toRunRow(r: RunRecord): RunRow {
  return {
    runId: r.run_id,
    routineId: r.routine_id,
    webhookId: r.webhook_id,
    deliveryId: r.delivery_id,
    triggerAccount: { accountId: r.trigger_account_id, email: r.trigger_account_email },
    status: r.status,
    createdAt: r.created_at,
  };
}

export function toParkedRow(r: ParkedRecord): ParkedRow {
  return {
    sourceEventId: r.source_event_id,
    sourceStream: r.source_stream,
    sourceType: r.source_type,
    deliveryId: r.delivery_id,
    routineId: r.routine_id,
    error: r.error,
    parkedAt: r.parked_at,
  };
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
