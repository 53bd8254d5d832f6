import { assertStreamId, serializeEvents } from '../append.validation';
import {
  EventStoreUnavailableError,
  START_POSITION,
  type AppendResult,
  type EventHandler,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type GlobalPosition,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port';
import { OpenSubscriptions } from '../open-subscriptions.registry';
import { assertPayloadAttachment } from '../payload-request.validation';
import type { AppendOptions, PayloadStore } from '../payload-store.port';
import { assertNonNegativeInteger, assertPositiveInteger, withDefaults } from '../store-options.validation';
import { SqliteAppendChannel } from './sqlite-append.channel';
import { SqliteCatchUpSubscription } from './sqlite-catch-up.subscription';
import { SqliteCheckpointStore } from './sqlite-checkpoint.store';
import { SqliteEventStatements } from './sqlite-event.statements';
import { SqlitePayloadStore } from './sqlite-payload.store';
import { SqliteWriter, type CommitListener } from './sqlite-writer.client';
import { SqliteConnection } from './sqlite.connection';

export interface SqliteEventStoreOptions {
  /** How often an idle subscription checks for appends made by other processes (this process's other threads tell it). Default 20 ms. */
  readonly pollIntervalMs?: number;
  /** How long an append waits for another writer's lock before failing (503). Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Events read per batch by subscriptions. Default 256. */
  readonly subscriptionBatchSize?: number;
  /** The largest event accepted (data + metadata JSON bytes). Default SQLite's own limit. */
  readonly maxEventBytes?: number;
  /** How long payloads().reclaim() keeps trying to truncate the WAL while another connection reads. Default 30,000 ms. */
  readonly truncateWaitMs?: number;
}

/** Appends sharing one transaction at most (a bound on one commit's size and on the wait behind it). */
const MAX_APPENDS_PER_COMMIT = 1000;

/** SQLite's own limit on one value (SQLITE_MAX_LENGTH): a larger event would fail inside the transaction. */
export const SQLITE_MAX_EVENT_BYTES = 1_000_000_000;

const DEFAULTS = {
  pollIntervalMs: 20,
  busyTimeoutMs: 5000,
  subscriptionBatchSize: 256,
  maxEventBytes: SQLITE_MAX_EVENT_BYTES,
  truncateWaitMs: 30_000,
} as const;

/**
 * The embedded event store: one SQLite file in WAL mode, shareable by several processes
 * (the ingress appends deliveries, the dispatcher appends runs and subscribes).
 */
export class SqliteEventStore implements EventStore {
  readonly maxEventBytes: number;
  /** Subscriptions waiting for an append through this instance, each with the streams it follows (undefined: all). */
  private readonly appendListeners = new Map<() => void, readonly string[] | undefined>();
  private readonly subscriptions = new OpenSubscriptions();
  private readonly checkpointStore: SqliteCheckpointStore;
  private readonly payloadStore: SqlitePayloadStore;
  /** This thread's appends to the other threads' stores of the file, and theirs to this one's subscriptions. */
  private readonly appends: SqliteAppendChannel;

  private constructor(
    private readonly connection: SqliteConnection,
    private readonly queries: SqliteEventStatements,
    private readonly options: Required<SqliteEventStoreOptions>,
    /** Appends and checkpoint saves: a writer thread, group commit. Reads stay on this thread. */
    private readonly writer: SqliteWriter,
  ) {
    this.maxEventBytes = options.maxEventBytes;
    this.checkpointStore = new SqliteCheckpointStore(connection, writer);
    this.payloadStore = new SqlitePayloadStore(connection, writer, { truncateWaitMs: options.truncateWaitMs });
    this.appends = new SqliteAppendChannel(connection.filePath, (streamIds) => {
      for (const streamId of streamIds) this.notifyAppend(streamId);
    });
  }

  /** Opens (creating the file, its parent directories and the schema if needed). */
  static open(filePath: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
    const resolved = withDefaults(DEFAULTS, options);
    assertPositiveInteger('pollIntervalMs', resolved.pollIntervalMs);
    assertPositiveInteger('subscriptionBatchSize', resolved.subscriptionBatchSize);
    assertPositiveInteger('maxEventBytes', resolved.maxEventBytes);
    assertNonNegativeInteger('busyTimeoutMs', resolved.busyTimeoutMs);
    assertNonNegativeInteger('truncateWaitMs', resolved.truncateWaitMs);
    const connection = SqliteConnection.open(filePath, { busyTimeoutMs: resolved.busyTimeoutMs });
    try {
      const queries = connection.use('prepare', (db) => new SqliteEventStatements(db));
      const writer = SqliteWriter.spawn({ filePath, busyTimeoutMs: resolved.busyTimeoutMs, maxBatch: MAX_APPENDS_PER_COMMIT });
      return new SqliteEventStore(connection, queries, resolved, writer);
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  get filePath(): string {
    return this.connection.filePath;
  }

  /** Each commit of this process's writer thread: how many appends and checkpoint saves shared it, how long it took. */
  onCommit(listener: CommitListener): () => void {
    return this.writer.onCommit(listener);
  }

  /** The checkpoint store in the same database file (one instance per store). */
  checkpoints(): SqliteCheckpointStore {
    return this.checkpointStore;
  }

  /** The payloads in the same file: their bodies are written in the savepoint of the append that carries them. */
  payloads(): PayloadStore {
    return this.payloadStore;
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    assertStreamId(streamId);
    const serialized = serializeEvents(events, this.maxEventBytes);
    if (options.payload) assertPayloadAttachment(streamId, options.payload);
    if (!this.connection.isOpen) throw new EventStoreUnavailableError('event store is closed (append)');
    // Answered once the batch it joined has committed (and, with synchronous=FULL, been fsynced).
    const outcome = await this.writer.append(streamId, serialized, expected, options.payload);
    if (outcome.inserted) {
      this.notifyAppend(streamId);
      this.appends.announce(streamId);
    }
    return outcome.result;
  }

  async readFirstEvents(streamIds: readonly string[]): Promise<ReadonlyMap<string, RecordedEvent>> {
    return this.connection.use('readFirstEvents', () => this.queries.firstEvents(streamIds));
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    const { fromRevision = 0n, maxCount } = options;
    if (maxCount !== undefined) assertNonNegativeInteger('readStream maxCount', maxCount);
    if (maxCount === 0) return [];
    return this.connection.use('readStream', () =>
      this.queries.readStream(streamId, fromRevision < 0n ? 0n : fromRevision, maxCount ?? -1),
    );
  }

  async streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    const found = this.connection.use('streamHeads', () => this.queries.streamHeads(streamIds));
    return new Map(streamIds.map((streamId) => [streamId, found.get(streamId) ?? -1n]));
  }

  async readAll(options: ReadAllOptions): Promise<readonly RecordedEvent[]> {
    assertNonNegativeInteger('readAll limit', options.limit);
    const afterSeq = (options.after ?? START_POSITION).commit;
    const prefixes = options.filter?.streamPrefixes;
    return this.connection.use('readAll', () => this.queries.readRange(afterSeq, options.limit, prefixes));
  }

  subscribeToAll(options: SubscribeOptions, handler: EventHandler): Subscription {
    const prefixes = options.filter?.streamPrefixes?.slice();
    const subscription = new SqliteCatchUpSubscription(
      {
        headSeq: () => this.connection.use('subscribe', () => this.queries.headSeq()),
        readRange: (afterSeq, uptoSeq, limit) =>
          this.connection.use('subscribe', () => this.queries.readRange(afterSeq, limit, prefixes, uptoSeq)),
        onNextAppend: (listener) => {
          this.appendListeners.set(listener, prefixes);
          return () => this.appendListeners.delete(listener);
        },
      },
      {
        afterSeq: (options.after ?? START_POSITION).commit,
        batchSize: this.options.subscriptionBatchSize,
        pollIntervalMs: this.options.pollIntervalMs,
        onProgress: options.onProgress,
        onCaughtUp: options.onCaughtUp,
      },
      handler,
    );
    return this.subscriptions.track(subscription);
  }

  async headPosition(): Promise<GlobalPosition | undefined> {
    const head = this.connection.use('headPosition', () => this.queries.headSeq());
    return head === 0n ? undefined : { commit: head, prepare: head };
  }

  async ping(): Promise<void> {
    this.connection.use('ping', (db) => db.prepare('SELECT 1').get());
  }

  /** Stops every subscription (after their handlers in flight), then closes the file. Idempotent. */
  close(): Promise<void> {
    return this.subscriptions.closeThen(async () => {
      this.appends.close();
      await this.writer.close();
      this.connection.close();
    });
  }

  /** Wakes the subscriptions that would deliver an event of this stream (they poll for other processes' appends). */
  private notifyAppend(streamId: string): void {
    for (const [listener, prefixes] of [...this.appendListeners]) {
      if (prefixes && !prefixes.some((prefix) => streamId.startsWith(prefix))) continue;
      this.appendListeners.delete(listener);
      listener();
    }
  }
}
