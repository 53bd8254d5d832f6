import type { Transaction } from 'better-sqlite3';
import { ensurePrivateFile, type GlobalPosition } from '@wts/event-store';
import { auditParams, auditShape } from '../audit-listing';
import { decodeAttemptCursor, decodeAuditCursor, decodePositionCursor } from '../cursor';
import { checkDeniedAccess } from '../denied-access.policy';
import { checkHour, mergedHourlyCounts, toHourlyCount, type HourlyCount } from '../hourly-activity';
import { checkKeepPerWebhook, checkLimit, toAttemptPage, toAuditPage, toPositionPage } from '../pagination';
import {
  ReadModelUnavailableError,
  type AttemptRow,
  type AuditFilter,
  type AuditRow,
  type DeniedAccessBounds,
  type DeliveryListRow,
  type Page,
  type PageRequest,
  type ParkedRow,
  type ProjectionChange,
  type ReadModelStore,
  type RunRow,
  type WaitingRange,
} from '../read-model.port';
import {
  candidateQuery,
  checkStateIds,
  dueParams,
  toCandidatePage,
  toPayloadStates,
  type CandidateParam,
  type DeliveryPayloadState,
  type ErasureCandidatePage,
  type ErasureCandidateSelection,
} from '../payload-selection';
import { attemptValues, changeValues } from '../read-model.records';
import {
  positionOf,
  toDeliveryRow,
  withoutPosition,
  toRunRow,
  type AttemptRecord,
  type AuditRecord,
  type PositionedRow,
} from '../read-model.rows';
import { SqliteActivityWriter } from './sqlite-activity.writer';
import { prepareHourlyStatements, writeHourly, type SqliteHourlyStatements } from './sqlite-hourly.statements';
import { SqliteReadModelConnection } from './sqlite-read-model.connection';
import { prepareStatements, writeDenied, type ListAfter, type SqliteReadModelStatements } from './sqlite-read-model.statements';
import { checkedWaitingRange } from '../waiting-range';

export interface SqliteReadModelStoreOptions {
  /** How long a writer waits for another process's write lock (and how long open retries). */
  readonly busyTimeoutMs?: number;
  /**
   * Rejected attempts, replay counts and denied admin attempts are written on a thread of their
   * own (the ingress): a flood of refusals never runs a transaction on the event loop. Not for
   * `:memory:`.
   */
  readonly activityOffThread?: boolean;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * The embedded read model: a SQLite file beside the event store, shared by the processes of one
 * host. Every write is one IMMEDIATE transaction (the write lock is taken up front, so two writers
 * queue on the busy timeout instead of failing an upgrade half way). There is no lease to hold:
 * the checkpoint compare-and-set in commit() already makes a second projector harmless.
 */
export class SqliteReadModelStore implements ReadModelStore {
  private readonly queries: SqliteReadModelStatements;
  private readonly commitTransaction: Transaction<
    (name: string, changes: readonly ProjectionChange[], from: GlobalPosition | undefined, to: GlobalPosition) => boolean
  >;
  private readonly resetTransaction: Transaction<(name: string) => void>;
  private readonly attemptsTransaction: Transaction<(attempts: readonly AttemptRow[], keep: number) => void>;
  private readonly replaysTransaction: Transaction<(counts: ReadonlyMap<string, number>) => void>;
  private readonly deniedTransaction: Transaction<(rows: readonly AuditRow[], bounds: DeniedAccessBounds) => void>;
  private readonly hourly: SqliteHourlyStatements;
  private readonly hourlyTransaction: Transaction<(counts: readonly HourlyCount[], pruneBefore: string) => void>;
  private leaseAcquired = false;

  private constructor(
    private readonly connection: SqliteReadModelConnection,
    private readonly activity: SqliteActivityWriter | undefined,
  ) {
    const { db } = connection;
    const q = prepareStatements(db);
    this.queries = q;
    this.commitTransaction = db.transaction(
      (name: string, changes: readonly ProjectionChange[], from: GlobalPosition | undefined, to: GlobalPosition) => {
        const moved =
          from === undefined
            ? q.insertFirstCheckpoint.run(name, to.commit, to.prepare)
            : q.moveCheckpoint.run({
                name,
                fromCommit: from.commit,
                fromPrepare: from.prepare,
                toCommit: to.commit,
                toPrepare: to.prepare,
              });
        // Nothing has been written when the compare-and-set fails: the transaction ends empty.
        if (moved.changes !== 1) return false;
        for (const change of changes) {
          if (change.kind !== 'payload_removal') q.insertChange[change.kind].run(...changeValues(change));
          else {
            const { state, removedAt } = change.row;
            for (const deliveryId of change.row.deliveryIds) q.removePayload.run({ deliveryId, state, removedAt });
          }
        }
        return true;
      },
    );
    this.resetTransaction = db.transaction((name: string) => {
      for (const statement of q.deleteProjected) statement.run();
      q.deleteCheckpoint.run(name);
    });
    this.attemptsTransaction = db.transaction((attempts: readonly AttemptRow[], keep: number) => {
      for (const attempt of attempts) q.insertAttempt.run(...attemptValues(attempt));
      for (const webhookId of new Set(attempts.map((attempt) => attempt.webhookId))) q.pruneAttempts.run({ webhookId, keep });
    });
    this.replaysTransaction = db.transaction((counts: ReadonlyMap<string, number>) => {
      for (const [deliveryId, count] of counts) q.addReplays.run(deliveryId, count);
    });
    this.deniedTransaction = db.transaction((rows: readonly AuditRow[], bounds: DeniedAccessBounds) => writeDenied(q, rows, bounds));
    this.hourly = prepareHourlyStatements(db);
    this.hourlyTransaction = db.transaction((counts: readonly HourlyCount[], before: string) => writeHourly(this.hourly, counts, before));
  }

  /**
   * Creates the file, its parent directories and the schema when missing. The file is made here,
   * owner-only (0600; new directories 0700), before SQLite opens it: SQLite gives the database's
   * -wal and -shm files its mode, whatever the umask.
   */
  static open(filePath: string, options: SqliteReadModelStoreOptions = {}): SqliteReadModelStore {
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    if (filePath !== ':memory:') createPrivately(filePath);
    const connection = SqliteReadModelConnection.open(filePath, busyTimeoutMs);
    const offThread = options.activityOffThread === true && filePath !== ':memory:';
    return new SqliteReadModelStore(connection, offThread ? SqliteActivityWriter.spawn(filePath, busyTimeoutMs) : undefined);
  }

  async loadCheckpoint(name: string): Promise<GlobalPosition | undefined> {
    const record = this.connection.use('loadCheckpoint', () => this.queries.loadCheckpoint.get(name));
    return record === undefined ? undefined : positionOf(record);
  }

  async commit(name: string, changes: readonly ProjectionChange[], from: GlobalPosition | undefined, to: GlobalPosition): Promise<boolean> {
    return this.connection.use('commit', () => this.commitTransaction.immediate(name, changes, from, to));
  }

  async reset(name: string): Promise<void> {
    this.connection.use('reset', () => this.resetTransaction.immediate(name));
  }

  async deliveries(routineId: string, page: PageRequest): Promise<Page<DeliveryListRow>> {
    const [after, limit] = listAfter(page);
    const records = this.connection.use('deliveries', () => this.queries.deliveries.all({ ...after, routineId }));
    return toPositionPage(records, limit, toDeliveryRow);
  }

  async waitingDeliveries(routineId: string, range: WaitingRange, cap: number): Promise<number> {
    const { after, before } = checkedWaitingRange(range, cap);
    const params = {
      routineId,
      commit: after.commit,
      prepare: after.prepare,
      beforeCommit: before.commit,
      beforePrepare: before.prepare,
      cap,
    };
    const record = this.connection.use('waitingDeliveries', () => this.queries.waitingDeliveries.get(params));
    return Number(record?.waiting ?? 0);
  }

  async runs(routineId: string, page: PageRequest): Promise<Page<RunRow>> {
    const [after, limit] = listAfter(page);
    const records = this.connection.use('runs', () => this.queries.runs.all({ ...after, routineId }));
    return toPositionPage(records, limit, toRunRow);
  }

  async parked(routineId: string | undefined, page: PageRequest): Promise<Page<ParkedRow>> {
    const [after, limit] = listAfter(page);
    const records: PositionedRow<ParkedRow>[] = this.connection.use('parked', () =>
      routineId === undefined ? this.queries.parkedAll.all(after) : this.queries.parkedOfRoutine.all({ ...after, routineId }),
    );
    return toPositionPage(records, limit, withoutPosition);
  }

  async recordAttempts(attempts: readonly AttemptRow[], keepPerWebhook: number): Promise<void> {
    const keep = checkKeepPerWebhook(keepPerWebhook);
    if (attempts.length === 0) return;
    const activity = this.activity;
    if (activity) return this.connection.use('recordAttempts', () => activity).recordAttempts(attempts, keep);
    this.connection.use('recordAttempts', () => this.attemptsTransaction.immediate(attempts, keep));
  }

  async attempts(webhookId: string, page: PageRequest): Promise<Page<AttemptRow>> {
    const limit = checkLimit(page);
    const afterId = decodeAttemptCursor(page.cursor);
    const records: AttemptRecord[] = this.connection.use('attempts', () =>
      this.queries.attempts.all({ webhookId, afterId, limit: limit + 1 }),
    );
    return toAttemptPage(records, limit);
  }

  async recordDeniedAccess(rows: readonly AuditRow[], bounds: DeniedAccessBounds): Promise<void> {
    const checked = checkDeniedAccess(rows, bounds);
    if (rows.length === 0) return;
    const activity = this.activity;
    if (activity) return this.connection.use('recordDeniedAccess', () => activity).recordDeniedAccess(rows, checked);
    this.connection.use('recordDeniedAccess', () => this.deniedTransaction.immediate(rows, checked));
  }

  async audit(filter: AuditFilter, page: PageRequest): Promise<Page<AuditRow>> {
    const limit = checkLimit(page);
    const after = decodeAuditCursor(page.cursor);
    const records: AuditRecord[] = this.connection.use('audit', () =>
      this.queries.audit(auditShape(filter, after)).all(auditParams(filter, after, limit + 1)),
    );
    return toAuditPage(records, limit);
  }

  async recordReplays(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    const counts = new Map<string, number>();
    for (const id of deliveryIds) counts.set(id, (counts.get(id) ?? 0) + 1);
    const activity = this.activity;
    if (activity) return this.connection.use('recordReplays', () => activity).recordReplays(counts);
    this.connection.use('recordReplays', () => this.replaysTransaction.immediate(counts));
  }

  async recordHourlyCounts(counts: readonly HourlyCount[], pruneBefore: string): Promise<void> {
    const [merged, before] = [mergedHourlyCounts(counts), checkHour(pruneBefore, 'pruneBefore')];
    const activity = this.activity;
    if (activity) return this.connection.use('recordHourlyCounts', () => activity).recordHourlyCounts(merged, before);
    this.connection.use('recordHourlyCounts', () => this.hourlyTransaction.immediate(merged, before));
  }

  async hourlyCounts(webhookId: string, from: string, to: string): Promise<readonly HourlyCount[]> {
    const params = { webhookId, from: checkHour(from, 'from'), to: checkHour(to, 'to') };
    return this.connection.use('hourlyCounts', () => this.hourly.list.all(params)).map((record) => toHourlyCount(webhookId, record));
  }

  async payloadsDue(now: Date, limit: number): Promise<readonly string[]> {
    const params = dueParams(now, limit);
    return this.connection.use('payloadsDue', () => this.queries.payloadsDue.all(params)).map((row) => row.delivery_id);
  }

  async erasureCandidates(selection: ErasureCandidateSelection, after: string | null, limit: number): Promise<ErasureCandidatePage> {
    const query = candidateQuery(selection, after, limit);
    const params: Partial<Record<CandidateParam, string | number>> = {};
    for (const [name, value] of Object.entries(query.values) as [CandidateParam, (typeof query.values)[CandidateParam]][]) {
      if (value !== null) params[name] = typeof value === 'object' ? JSON.stringify(value) : value;
    }
    const rows = this.connection.use('erasureCandidates', () => this.queries.candidates(query.shape).all(params));
    return toCandidatePage(rows, query.limit);
  }

  async deliveryPayloadStates(deliveryIds: readonly string[]): Promise<ReadonlyMap<string, DeliveryPayloadState>> {
    const ids = JSON.stringify(checkStateIds(deliveryIds));
    return toPayloadStates(this.connection.use('deliveryPayloadStates', () => this.queries.payloadStates.all(ids)));
  }

  async tryAcquireProjectorLease(): Promise<boolean> {
    this.connection.use('tryAcquireProjectorLease', () => undefined);
    this.leaseAcquired = true;
    return true;
  }

  holdsProjectorLease(): boolean {
    return this.leaseAcquired && this.connection.isOpen;
  }

  async ping(): Promise<void> {
    this.connection.use('ping', () => this.queries.ping.get());
  }

  async close(): Promise<void> {
    await this.activity?.close();
    this.connection.close();
  }
}

function createPrivately(filePath: string): void {
  try {
    ensurePrivateFile(filePath);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReadModelUnavailableError(`cannot open read model at ${filePath}: ${reason}`, { cause: error });
  }
}

/** Validates the page before anything touches the database (RangeError / InvalidCursorError). */
function listAfter(page: PageRequest): [ListAfter, number] {
  const limit = checkLimit(page);
  const { commit, prepare } = decodePositionCursor(page.cursor);
  return [{ commit, prepare, limit: limit + 1 }, limit];
}
