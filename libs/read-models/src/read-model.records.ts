import type { AttemptRow, AuditRow, ProjectionChange } from './read-model.port';

/**
 * The one mapping between the port's rows and the tables' columns, shared by both adapters so
 * that they cannot drift apart (the way back, from columns to rows, is read-model.rows.ts).
 */

export type SqlValue = string | bigint | null;

/** The kinds of change that insert a row; a payload removal updates the delivery's row instead. */
export type InsertedKind = Exclude<ProjectionChange['kind'], 'payload_removal'>;
export type InsertedChange = Extract<ProjectionChange, { readonly kind: InsertedKind }>;

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

export const PROJECTION_TABLES: Readonly<Record<InsertedKind, ProjectionTable>> = {
  delivery: {
    table: 'rm_deliveries',
    key: 'delivery_id',
    // payload_state and payload_removed_at are not written here: a new row's payload is kept.
    columns: [
      ...['delivery_id', 'routine_id', 'webhook_id', 'run_id', 'received_at'].map(text),
      ...['trigger_account_id', 'trigger_account_email', 'content_type', 'idempotency_key'].map(text),
      ...position,
      ...['payload_expires_at', 'trigger_account_email_folded'].map(text),
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
export const WRITE_ORDER: readonly InsertedKind[] = ['delivery', 'run', 'parked', 'webhook_routine', 'audit'];

/** The kinds whose rows `kind`'s rows read while they are inserted (through a column fallback). */
export function kindsReadBy(kind: InsertedKind): readonly InsertedKind[] {
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
export function changeValues(change: InsertedChange): readonly SqlValue[] {
  const at = [change.position.commit, change.position.prepare];
  switch (change.kind) {
    case 'delivery': {
      const r = change.row;
      return [
        r.delivery_id,
        r.routine_id,
        r.webhook_id,
        r.run_id,
        r.received_at,
        r.trigger_account.account_id,
        r.trigger_account.email,
        r.content_type,
        r.idempotency_key,
        ...at,
        r.payload_expires_at,
        foldAccountEmail(r.trigger_account.email),
      ];
    }
    case 'run': {
      const r = change.row;
      return [
        r.run_id,
        r.routine_id,
        r.webhook_id,
        r.delivery_id,
        r.trigger_account.account_id,
        r.trigger_account.email,
        r.status,
        r.created_at,
        ...at,
      ];
    }
    case 'parked': {
      const r = change.row;
      return [r.source_event_id, r.source_stream, r.source_type, r.delivery_id, r.routine_id, r.error, r.parked_at, ...at];
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

/**
 * An address as the account catalog compares it (toLowerCase, as the spec matches accounts): stored
 * folded beside the email, because SQLite's lower() folds ASCII only and PostgreSQL's follows the
 * database's locale, and an erasure by trigger account must select the same deliveries on both.
 */
export function foldAccountEmail(email: string): string {
  return email.toLowerCase();
}

export function attemptValues(attempt: AttemptRow): readonly string[] {
  return [attempt.webhookId, attempt.reason, attempt.at, attempt.sourceAddress];
}

export const AUDIT_COLUMNS: readonly string[] = PROJECTION_TABLES.audit.columns.map((column) => column.name);
