import type { GlobalPosition } from '@wts/event-store';
import type { AttemptRow, AuditActor, AuditRow, DeliveryListRow, ParkedRow, ProjectionChange, RunRow } from './read-model.port';

/**
 * The one mapping between the port's rows and the tables' columns, shared by both adapters so
 * that they cannot drift apart. Integers come back as bigint from SQLite (safe integers) and as
 * decimal strings from PostgreSQL (int8): both are accepted wherever a number is read.
 */

export type SqlValue = string | bigint | null;
type DbInteger = bigint | string | number;

export interface ColumnSpec {
  readonly name: string;
  readonly type: 'text' | 'bigint';
  /** When the value written is null: `column` of the `table` row whose `key` is this row's `by` column (else null). */
  readonly fallback?: { readonly table: string; readonly key: string; readonly column: string; readonly by: string };
}

export interface ProjectionTable {
  readonly table: string;
  readonly key: string;
  /** In the order of `changeValues`. */
  readonly columns: readonly ColumnSpec[];
}

const text = (name: string): ColumnSpec => ({ name, type: 'text' });
const position: readonly ColumnSpec[] = [
  { name: 'commit_pos', type: 'bigint' },
  { name: 'prepare_pos', type: 'bigint' },
];

export const PROJECTION_TABLES: Readonly<Record<ProjectionChange['kind'], ProjectionTable>> = {
  delivery: {
    table: 'rm_deliveries',
    key: 'delivery_id',
    columns: [
      ...['delivery_id', 'routine_id', 'webhook_id', 'run_id', 'received_at'].map(text),
      ...['trigger_account_id', 'trigger_account_email', 'content_type', 'idempotency_key'].map(text),
      ...position,
    ],
  },
  run: {
    table: 'rm_runs',
    key: 'run_id',
    columns: [
      ...['run_id', 'routine_id', 'webhook_id', 'delivery_id'].map(text),
      ...['trigger_account_id', 'trigger_account_email', 'status', 'created_at'].map(text),
      ...position,
    ],
  },
  parked: {
    table: 'rm_parked',
    key: 'source_event_id',
    columns: [
      ...['source_event_id', 'source_stream', 'source_type', 'delivery_id', 'routine_id', 'error', 'parked_at'].map(text),
      ...position,
    ],
  },
  webhook_routine: { table: 'rm_webhook_routines', key: 'webhook_id', columns: ['webhook_id', 'routine_id'].map(text) },
  audit: {
    table: 'rm_audit_entries',
    key: 'entry_id',
    columns: [
      ...['entry_id', 'at', 'actor_kind', 'actor_subject', 'actor_display', 'action', 'target_type', 'target_id'].map(text),
      // A webhook event after the first names only its webhook: its routine comes from the mapping.
      { ...text('routine_id'), fallback: { table: 'rm_webhook_routines', key: 'webhook_id', column: 'routine_id', by: 'webhook_id' } },
      ...['webhook_id', 'outcome', 'trace_id', 'detail', 'source_address'].map(text),
      // 1 or 0 (null without an actor): the actor filter matches the display only where it is 1.
      { name: 'actor_display_verified', type: 'bigint' },
    ],
  },
};

/**
 * The order kinds are written in when a batch is split by kind (PostgreSQL): a table another
 * kind's fallback reads comes before that kind.
 */
export const WRITE_ORDER: readonly ProjectionChange['kind'][] = ['delivery', 'run', 'parked', 'webhook_routine', 'audit'];

/** The kinds whose rows `kind`'s rows read while they are inserted (through a column fallback). */
export function kindsReadBy(kind: ProjectionChange['kind']): readonly ProjectionChange['kind'][] {
  const tables = new Set(PROJECTION_TABLES[kind].columns.flatMap((column) => (column.fallback ? [column.fallback.table] : [])));
  return WRITE_ORDER.filter((other) => tables.has(PROJECTION_TABLES[other].table));
}

export const ATTEMPT_COLUMNS = ['webhook_id', 'reason', 'at', 'source_address'] as const;

export function columnList(table: ProjectionTable, alias?: string): string {
  return table.columns.map((column) => (alias ? `${alias}.${column.name}` : column.name)).join(', ');
}

/** The values to insert, read from the row source `alias` (one column each), with the fallbacks applied. */
export function selectList(table: ProjectionTable, alias: string): string {
  return table.columns
    .map(({ name, fallback }) =>
      fallback
        ? `COALESCE(${alias}.${name}, (SELECT f.${fallback.column} FROM ${fallback.table} f WHERE f.${fallback.key} = ${alias}.${fallback.by}))`
        : `${alias}.${name}`,
    )
    .join(', ');
}

export function hasFallback(table: ProjectionTable): boolean {
  return table.columns.some((column) => column.fallback !== undefined);
}

/** The values of one change, in the order of its table's `columns`. */
export function changeValues(change: ProjectionChange): readonly SqlValue[] {
  const at = [change.position.commit, change.position.prepare];
  switch (change.kind) {
    case 'delivery': {
      const r = change.row;
      return [
        r.deliveryId,
        r.routineId,
        r.webhookId,
        r.runId,
        r.receivedAt,
        r.triggerAccount.accountId,
        r.triggerAccount.email,
        r.contentType,
        r.idempotencyKey,
        ...at,
      ];
    }
    case 'run': {
      const r = change.row;
      return [
        r.runId,
        r.routineId,
        r.webhookId,
        r.deliveryId,
        r.triggerAccount.accountId,
        r.triggerAccount.email,
        r.status,
        r.createdAt,
        ...at,
      ];
    }
    case 'parked': {
      const r = change.row;
      return [r.sourceEventId, r.sourceStream, r.sourceType, r.deliveryId, r.routineId, r.error, r.parkedAt, ...at];
    }
    case 'webhook_routine':
      return [change.row.webhookId, change.row.routineId];
    case 'audit':
      return auditValues(change.row);
  }
}

/** The values of one audit entry, in the order of the audit table's `columns`. */
export function auditValues(r: AuditRow): readonly SqlValue[] {
  return [
    r.entryId,
    r.at,
    r.actor?.kind ?? null,
    r.actor?.subject ?? null,
    r.actor?.display ?? null,
    r.action,
    r.targetType,
    r.targetId,
    r.routineId,
    r.webhookId,
    r.outcome,
    r.traceId,
    r.detail,
    r.sourceAddress,
    r.actor === null ? null : r.actor.displayVerified ? 1n : 0n,
  ];
}

export function attemptValues(attempt: AttemptRow): readonly string[] {
  return [attempt.webhookId, attempt.reason, attempt.at, attempt.sourceAddress];
}

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

export const AUDIT_COLUMNS: readonly string[] = PROJECTION_TABLES.audit.columns.map((column) => column.name);

export type CheckpointRecord = Positioned;

export function positionOf(record: Positioned): GlobalPosition {
  return { commit: BigInt(record.commit_pos), prepare: BigInt(record.prepare_pos) };
}

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
