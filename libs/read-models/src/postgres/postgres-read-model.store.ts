import type { GlobalPosition } from '@wts/event-store';
import type { Pool, PoolClient } from 'pg';
import { auditParams, auditShape } from '../audit-listing';
import { decodeAttemptCursor, decodeAuditCursor, decodePositionCursor } from '../cursor';
import { checkDeniedAccess, deniedSources } from '../denied-access.policy';
import { checkHour, mergedHourlyCounts, toHourlyCount, type HourlyCount, type HourlyRecord } from '../hourly-activity';
import { checkKeepPerWebhook, checkLimit, toAttemptPage, toAuditPage, toPositionPage } from '../pagination';
import type {
  AttemptRow,
  AuditFilter,
  AuditRow,
  DeniedAccessBounds,
  DeliveryListRow,
  Page,
  PageRequest,
  ParkedRow,
  ProjectionChange,
  ReadModelStore,
  RunRow,
  WaitingRange,
} from '../read-model.port';
import { ReadModelUnavailableError } from '../read-model.port';
import {
  candidateQuery,
  checkStateIds,
  dueParams,
  toCandidatePage,
  toPayloadStates,
  type CandidateRecord,
  type DeliveryPayloadState,
  type ErasureCandidatePage,
  type ErasureCandidateSelection,
  type PayloadStateRecord,
} from '../payload-selection';
import { attemptValues, auditValues } from '../read-model.records';
import {
  positionOf,
  toDeliveryRow,
  withoutPosition,
  toRunRow,
  type AttemptRecord,
  type AuditRecord,
  type CheckpointRecord,
  type DeliveryRecord,
  type PositionedRow,
  type RunRecord,
} from '../read-model.rows';
import { schemaLockKey } from './postgres-lock.keys';
import { PostgresProjectorLease } from './postgres-projector.lease';
import { connectionOf, type PostgresReadModelStoreOptions } from './postgres-read-model.config';
import { describePgError, toUnavailable } from './postgres-read-model.errors';
import { ADD_HOURLY, LIST_HOURLY, PRUNE_HOURLY } from './postgres-hourly.statements';
import { inTransaction } from './postgres-read-model.transaction';
import { migrate } from './postgres-read-model.migrations';
import * as sql from './postgres-read-model.statements';
import { checkedWaitingRange } from '../waiting-range';

export type { PostgresReadModelStoreOptions } from './postgres-read-model.config';

/**
 * The read model in PostgreSQL (DATABASE_URL), shared by every replica. All statements go
 * through one pool whose sessions have `search_path` set to the schema; every call has a bound
 * (connection timeout, statement_timeout, and a client-side query timeout for a server that
 * stops answering) so a dead server becomes ReadModelUnavailableError, never a hang.
 */
export class PostgresReadModelStore implements ReadModelStore {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly pool: Pool,
    private readonly lease: PostgresProjectorLease,
    private readonly commitLockKey: string,
  ) {}

  static async open(options: PostgresReadModelStoreOptions): Promise<PostgresReadModelStore> {
    const { schema, connection } = connectionOf(options);
    // pg is loaded here, when PostgreSQL is chosen: the embedded default never spends its start-up time.
    const { Pool: PgPool } = await import('pg');
    const pool = new PgPool({ ...connection, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
    // An idle pooled connection that dies (server restart) is dropped by the pool; without a
    // listener its 'error' would crash the process. The next checkout connects anew.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, schema);
        client.release();
      } catch (error) {
        client.release(true);
        throw error;
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new ReadModelUnavailableError(`cannot open read model in schema ${schema}: ${describePgError(error)}`, { cause: error });
    }
    const lease = new PostgresProjectorLease(
      { ...connection, application_name: `${connection.application_name}-lease` },
      schemaLockKey('projector-lease', schema),
      options.leaseHeartbeatMs ?? 5_000,
    );
    return new PostgresReadModelStore(pool, lease, schemaLockKey('commit', schema));
  }

  async loadCheckpoint(name: string): Promise<GlobalPosition | undefined> {
    const { rows } = await this.query<CheckpointRecord>('loadCheckpoint', sql.LOAD_CHECKPOINT, [name]);
    return rows[0] === undefined ? undefined : positionOf(rows[0]);
  }

  async commit(name: string, changes: readonly ProjectionChange[], from: GlobalPosition | undefined, to: GlobalPosition): Promise<boolean> {
    return this.transaction('commit', async (client) => {
      await client.query(sql.COMMIT_LOCK, [this.commitLockKey]);
      const moved =
        from === undefined
          ? await client.query(sql.INSERT_FIRST_CHECKPOINT, [name, String(to.commit), String(to.prepare)])
          : await client.query(sql.MOVE_CHECKPOINT, [
              name,
              String(from.commit),
              String(from.prepare),
              String(to.commit),
              String(to.prepare),
            ]);
      if (moved.rowCount !== 1) return { outcome: false, commit: false };
      for (const insert of sql.insertChanges(changes)) await client.query(insert.text, insert.values);
      return { outcome: true, commit: true };
    });
  }

  async reset(name: string): Promise<void> {
    await this.transaction('reset', async (client) => {
      await client.query(sql.COMMIT_LOCK, [this.commitLockKey]);
      for (const statement of sql.RESET_STATEMENTS) await client.query(statement);
      await client.query(sql.DELETE_CHECKPOINT, [name]);
      return { outcome: undefined, commit: true };
    });
  }

  async deliveries(routineId: string, page: PageRequest): Promise<Page<DeliveryListRow>> {
    const [after, limit] = listAfter(page);
    const { rows } = await this.query<DeliveryRecord>('deliveries', sql.LIST_DELIVERIES, [routineId, ...after]);
    return toPositionPage(rows, limit, toDeliveryRow);
  }

  async waitingDeliveries(routineId: string, range: WaitingRange, cap: number): Promise<number> {
    const { after, before } = checkedWaitingRange(range, cap);
    const params = [routineId, String(after.commit), String(after.prepare), String(before.commit), String(before.prepare), cap];
    const { rows } = await this.query<{ waiting: string }>('waitingDeliveries', sql.COUNT_WAITING_DELIVERIES, params);
    return Number(rows[0]?.waiting ?? 0);
  }

  async runs(routineId: string, page: PageRequest): Promise<Page<RunRow>> {
    const [after, limit] = listAfter(page);
    const { rows } = await this.query<RunRecord>('runs', sql.LIST_RUNS, [routineId, ...after]);
    return toPositionPage(rows, limit, toRunRow);
  }

  async parked(routineId: string | undefined, page: PageRequest): Promise<Page<ParkedRow>> {
    const [after, limit] = listAfter(page);
    const text = routineId === undefined ? sql.LIST_PARKED_ALL : sql.LIST_PARKED_OF_ROUTINE;
    const { rows } = await this.query<PositionedRow<ParkedRow>>('parked', text, [routineId ?? null, ...after]);
    return toPositionPage(rows, limit, withoutPosition);
  }

  async recordAttempts(attempts: readonly AttemptRow[], keepPerWebhook: number): Promise<void> {
    const keep = checkKeepPerWebhook(keepPerWebhook);
    if (attempts.length === 0) return;
    const rows = attempts.map(attemptValues);
    const columns = [0, 1, 2, 3].map((index) => rows.map((row) => row[index]));
    const webhookIds = [...new Set(attempts.map((attempt) => attempt.webhookId))];
    await this.transaction('recordAttempts', async (client) => {
      await client.query(sql.INSERT_ATTEMPTS, columns);
      await client.query(sql.PRUNE_ATTEMPTS, [webhookIds, keep]);
      return { outcome: undefined, commit: true };
    });
  }

  async attempts(webhookId: string, page: PageRequest): Promise<Page<AttemptRow>> {
    const limit = checkLimit(page);
    const afterId = decodeAttemptCursor(page.cursor);
    const { rows } = await this.query<AttemptRecord>('attempts', sql.LIST_ATTEMPTS, [webhookId, String(afterId), limit + 1]);
    return toAttemptPage(rows, limit);
  }

  async recordDeniedAccess(rows: readonly AuditRow[], bounds: DeniedAccessBounds): Promise<void> {
    const { perSource, overall } = checkDeniedAccess(rows, bounds);
    if (rows.length === 0) return;
    const insert = sql.insertRows('audit', rows.map(auditValues));
    await this.transaction('recordDeniedAccess', async (client) => {
      await client.query(insert.text, insert.values);
      for (const [deniedClass, sources] of deniedSources(rows)) {
        await client.query(sql.TRIM_DENIED_OF_SOURCES[deniedClass], [sources, perSource]);
        await client.query(sql.TRIM_DENIED[deniedClass], [overall]);
      }
      return { outcome: undefined, commit: true };
    });
  }

  async audit(filter: AuditFilter, page: PageRequest): Promise<Page<AuditRow>> {
    const limit = checkLimit(page);
    const after = decodeAuditCursor(page.cursor);
    const listing = sql.listAudit(auditShape(filter, after));
    const values = auditParams(filter, after, limit + 1);
    const { rows } = await this.query<AuditRecord>(
      'audit',
      listing.text,
      listing.params.map((name) => values[name]),
    );
    return toAuditPage(rows, limit);
  }

  async recordReplays(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.query('recordReplays', sql.ADD_REPLAYS, [deliveryIds]);
  }

  async recordHourlyCounts(counts: readonly HourlyCount[], pruneBefore: string): Promise<void> {
    const [merged, before] = [mergedHourlyCounts(counts), checkHour(pruneBefore, 'pruneBefore')];
    const columns = [merged.map((c) => c.webhookId), merged.map((c) => c.hour), merged.map((c) => c.outcome), merged.map((c) => c.count)];
    await this.transaction('recordHourlyCounts', async (client) => {
      if (merged.length > 0) await client.query(ADD_HOURLY, columns);
      await client.query(PRUNE_HOURLY, [before]);
      return { outcome: undefined, commit: true };
    });
  }

  async hourlyCounts(webhookId: string, from: string, to: string): Promise<readonly HourlyCount[]> {
    const range = [webhookId, checkHour(from, 'from'), checkHour(to, 'to')];
    return (await this.query<HourlyRecord>('hourlyCounts', LIST_HOURLY, range)).rows.map((record) => toHourlyCount(webhookId, record));
  }

  async payloadsDue(now: Date, limit: number): Promise<readonly string[]> {
    const params = dueParams(now, limit);
    const { rows } = await this.query<{ delivery_id: string }>('payloadsDue', sql.PAYLOADS_DUE, [params.now, params.limit]);
    return rows.map((row) => row.delivery_id);
  }

  async erasureCandidates(selection: ErasureCandidateSelection, after: string | null, limit: number): Promise<ErasureCandidatePage> {
    const query = candidateQuery(selection, after, limit);
    const listing = sql.listCandidates(query.shape);
    const values = listing.params.map((name) => query.values[name]);
    const { rows } = await this.query<CandidateRecord>('erasureCandidates', listing.text, values);
    return toCandidatePage(rows, query.limit);
  }

  async deliveryPayloadStates(deliveryIds: readonly string[]): Promise<ReadonlyMap<string, DeliveryPayloadState>> {
    const ids = checkStateIds(deliveryIds);
    return toPayloadStates((await this.query<PayloadStateRecord>('deliveryPayloadStates', sql.PAYLOAD_STATES, [ids])).rows);
  }

  async tryAcquireProjectorLease(): Promise<boolean> {
    this.ensureOpen('tryAcquireProjectorLease');
    try {
      return await this.lease.tryAcquire();
    } catch (error) {
      throw toUnavailable('tryAcquireProjectorLease', error);
    }
  }

  holdsProjectorLease(): boolean {
    return this.closing === undefined && this.lease.holds;
  }

  async ping(): Promise<void> {
    await this.query('ping', 'SELECT 1', []);
  }

  close(): Promise<void> {
    this.closing ??= Promise.all([this.lease.release(), this.pool.end().catch(() => undefined)]).then(() => undefined);
    return this.closing;
  }

  private ensureOpen(operation: string): void {
    if (this.closing) throw new ReadModelUnavailableError(`read model is closed (${operation})`);
  }

  private async query<R extends object>(operation: string, text: string, values: unknown[]): Promise<{ rows: R[] }> {
    this.ensureOpen(operation);
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw toUnavailable(operation, error);
    }
  }

  private transaction<T>(operation: string, body: (client: PoolClient) => Promise<{ outcome: T; commit: boolean }>): Promise<T> {
    this.ensureOpen(operation);
    return inTransaction(this.pool, operation, body);
  }
}

/** Validates the page before anything touches the database (RangeError / InvalidCursorError). */
function listAfter(page: PageRequest): [[string, string, number], number] {
  const limit = checkLimit(page);
  const { commit, prepare } = decodePositionCursor(page.cursor);
  return [[String(commit), String(prepare), limit + 1], limit];
}
