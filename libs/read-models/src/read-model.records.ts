import type { GlobalPosition } from '@wts/event-store';
import type { AttemptRow, DeliveryListRow, ParkedRow, ProjectionChange, RunRow } from './read-model.port';

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
};

export const ATTEMPT_COLUMNS = ['webhook_id', 'reason', 'at', 'source_address'] as const;

export function columnList(table: ProjectionTable, alias?: string): string {
  return table.columns.map((column) => (alias ? `${alias}.${column.name}` : column.name)).join(', ');
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
  }
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
