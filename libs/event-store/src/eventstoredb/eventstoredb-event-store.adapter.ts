import { OpenSubscriptions } from '../open-subscriptions';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type EventData,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { DuplicateEventIdError, InvalidAppendError } from '../event-store.errors';
import {
  EventStoreUnavailableError,
  START_POSITION,
  comparePositions,
  type AppendResult,
  type EventHandler,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type GlobalPosition,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionFilter,
} from '../event-store.port';
import {
  DEFAULT_RESUBSCRIBE_POLICY,
  EventStoreDbCatchUpSubscription,
  filterCheckpoint,
  type FilterCheckpoint,
  type ResubscribePolicy,
} from './eventstoredb-catch-up.subscription';
import { EventStoreDbCheckpointStore } from './eventstoredb-checkpoint.store';
import {
  createEventStoreDbClient,
  handleOf,
  type ClientRead,
  type ClientSubscription,
  type EventStoreDbClientFactory,
  type EventStoreDbClientHandle,
} from './eventstoredb-client.port';
import {
  CHECKPOINT_STREAM_PREFIX,
  matchesFilter,
  positionOf,
  readFrom,
  satisfiesExpected,
  toActualRevision,
  toClientPosition,
  toEventData,
  toExpectedRevision,
  toGlobalPosition,
  toRecordedEvent,
  toVisibleEvent,
} from './eventstoredb-event.mapping';
import { closeHandle, leaseSharedClient } from './eventstoredb-shared.client';
import { EventStoreDbConnection } from './eventstoredb.connection';

export interface EventStoreDbEventStoreOptions {
  /**
   * Deadline of one call to the server (ms), and the longest a streaming read may wait for its
   * next event. Default 10000, like the client's defaultDeadline.
   */
  readonly operationTimeoutMs?: number;
  /** Events fetched per request by an unfiltered readAll. Default 256. */
  readonly readPageSize?: number;
  /**
   * The server's MaxAppendSize (bytes; EventStoreDB's default is 1 MiB): larger events are refused
   * here with InvalidAppendError instead of by the server. Default 1048576.
   */
  readonly maxAppendBytes?: number;
  /** How subscriptions come back after the server or the connection ended them. */
  readonly resubscribe?: Partial<ResubscribePolicy>;
}

const DEFAULTS = { operationTimeoutMs: 10_000, readPageSize: 256, maxAppendBytes: 1_048_576 } as const;

type ResolvedOptions = Required<Omit<EventStoreDbEventStoreOptions, 'resubscribe'>> & { readonly resubscribe: ResubscribePolicy };

/** Events read backwards per request by headPosition() while skipping system events. */
const HEAD_PAGE_SIZE = 32;

/**
 * How often an append with 'any' or 'stream_exists' re-reads the stream when another writer
 * appended between its read and its append.
 */
const LOOSE_APPEND_ATTEMPTS = 5;

/** Marks the end of a filtered readAll: the server said the subscription caught up. */
const CAUGHT_UP = { caughtUp: true } as const;

/**
 * The EventStore port on EventStoreDB (gRPC, @eventstore/db-client 6.2.1); see docs/eventstoredb.md.
 * Conflicts are values (WrongExpectedVersionError). Appends and the reads that must see them go to
 * the leader. Idempotent retries with an exact expectation are the server's own idempotent writes;
 * with 'any' and 'stream_exists' the adapter checks the stream itself (the server only remembers
 * recent ids in memory). A filtered readAll runs as a server-side filtered catch-up subscription.
 * System events ($-streams, $-types) and checkpoint streams are never shown.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly maxEventBytes: number;
  private readonly subscriptions = new OpenSubscriptions();
  private readonly checkpointStore: EventStoreDbCheckpointStore;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly connection: EventStoreDbConnection,
    private readonly options: ResolvedOptions,
  ) {
    this.checkpointStore = new EventStoreDbCheckpointStore(connection);
    this.maxEventBytes = options.maxAppendBytes;
  }

  /**
   * Opens a store on the process's one client for this connection string (`esdb://host:2113?tls=false`,
   * see the client's docs), shared by every store opened here and disposed when the last one
   * closes. Connects lazily: an unreachable server shows up as EventStoreUnavailableError on use.
   * `factory` builds the client (a seam for tests).
   */
  static connect(
    connectionString: string,
    options: EventStoreDbEventStoreOptions = {},
    factory: EventStoreDbClientFactory = createEventStoreDbClient,
  ): EventStoreDbEventStore {
    const resolved = resolveOptions(options);
    if (/[?&]tlsVerifyCert=false(&|$)/i.test(connectionString)) {
      throw new Error(
        'invalid EventStoreDB connection string: tlsVerifyCert=false has no effect with @eventstore/db-client 6.2.1 (it only prints a warning); trust the server certificate with tlsCAFile=<path to the CA> instead',
      );
    }
    const lease = leaseSharedClient(connectionString, (text) => {
      try {
        return factory(text);
      } catch (error) {
        throw new Error(`invalid EventStoreDB connection string: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
    });
    return new EventStoreDbEventStore(
      new EventStoreDbConnection(lease.handle, { operationTimeoutMs: resolved.operationTimeoutMs }, () => lease.release()),
      resolved,
    );
  }

  /** Wraps an existing client (or a handle on one); close() disposes it and closes its channel. */
  static fromClient(
    client: EventStoreDBClient | EventStoreDbClientHandle,
    options: EventStoreDbEventStoreOptions = {},
  ): EventStoreDbEventStore {
    const resolved = resolveOptions(options);
    const handle = client instanceof EventStoreDBClient ? handleOf(client) : client;
    return new EventStoreDbEventStore(
      new EventStoreDbConnection(handle, { operationTimeoutMs: resolved.operationTimeoutMs }, () => closeHandle(handle)),
      resolved,
    );
  }

  /** The checkpoint store on the same client (one instance per store). */
  checkpoints(): EventStoreDbCheckpointStore {
    return this.checkpointStore;
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    if (typeof streamId !== 'string' || streamId.length === 0) {
      throw new InvalidAppendError('stream id must be a non-empty string');
    }
    if (streamId.startsWith('$')) throw new InvalidAppendError(`stream ${streamId}: names starting with $ are reserved`);
    if (streamId.startsWith(CHECKPOINT_STREAM_PREFIX)) {
      throw new InvalidAppendError(`stream ${streamId}: names starting with ${CHECKPOINT_STREAM_PREFIX} are reserved for checkpoints`);
    }
    const data = toEventData(events, this.maxEventBytes);
    const expectedRevision = toExpectedRevision(expected);
    // The server answers an empty append on a missing stream with "no_stream", which this client
    // reports as revision 0: check the expectation by reading instead (nothing is written anyway).
    if (data.length === 0) return this.checkExpected(streamId, expected);
    if (expected === 'any' || expected === 'stream_exists') return this.appendLoose(streamId, data, expected);

    const outcome = await this.appendExact(streamId, data, expectedRevision);
    if (outcome.kind === 'conflict') return { kind: 'conflict', streamId, expected, actualRevision: outcome.actualRevision };
    return outcome;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    const { fromRevision, maxCount } = options;
    if (maxCount !== undefined && (!Number.isSafeInteger(maxCount) || maxCount < 0)) {
      throw new RangeError(`readStream maxCount must be a non-negative integer, got ${maxCount}`);
    }
    if (maxCount === 0) return [];
    // From the leader: callers check expectations and fold state from what they read here.
    return this.connection.read(
      'readStream',
      (client) =>
        client.readStream(streamId, {
          direction: FORWARDS,
          fromRevision: fromRevision === undefined || fromRevision <= 0n ? START : fromRevision,
          requiresLeader: true,
          ...(maxCount === undefined ? {} : { maxCount }),
        }),
      (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
    );
  }

  /** One backwards read of one event per stream, in parallel, from the leader. */
  async streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    const unique = [...new Set(streamIds)];
    const heads = await Promise.all(
      unique.map(async (streamId) => [streamId, (await this.lastEvent(streamId, 'streamHeads'))?.revision ?? -1n] as const),
    );
    return new Map(heads);
  }

  async readAll(options: {
    readonly after?: GlobalPosition;
    readonly limit: number;
    readonly filter?: SubscriptionFilter;
  }): Promise<readonly RecordedEvent[]> {
    if (!Number.isSafeInteger(options.limit) || options.limit < 0) {
      throw new RangeError(`readAll limit must be a non-negative integer, got ${options.limit}`);
    }
    this.connection.assertOpen('readAll');
    const prefixes = options.filter?.streamPrefixes?.slice();
    if (options.limit === 0 || prefixes?.length === 0) return [];
    if (prefixes) return this.readAllFiltered(options.after, options.limit, prefixes);

    const found: RecordedEvent[] = [];
    // Exclusive lower bound. readAll's fromPosition is inclusive, so the event at `after` comes
    // back first and is skipped here, as is the last event of the previous page.
    let cursor = options.after;
    for (;;) {
      // One extra event covers the event at `cursor` that is read again.
      const pageSize = Math.min(this.options.readPageSize, options.limit - found.length + 1);
      const fromPosition: ReadPosition = readFrom(cursor);
      const page = await this.readAllPage('readAll', fromPosition, FORWARDS, pageSize);
      let advanced = false;
      for (const resolved of page) {
        const position = positionOf(resolved);
        // Every record of $all has a position; one without cannot be placed, so it is left out.
        if (!position || (cursor && comparePositions(position, cursor) <= 0)) continue;
        cursor = position;
        advanced = true;
        const event = toVisibleEvent(resolved);
        if (!event) continue;
        found.push(event);
        if (found.length === options.limit) return found;
      }
      if (page.length < pageSize || !advanced) return found;
    }
  }

  subscribeToAll(options: SubscribeOptions, handler: EventHandler): Subscription {
    const prefixes = options.filter?.streamPrefixes?.slice();
    const filter: SubscriptionFilter | undefined = prefixes ? { streamPrefixes: prefixes } : undefined;
    const connection = this.connection;
    const subscription = new EventStoreDbCatchUpSubscription(
      {
        open: (after) => {
          connection.assertOpen('subscribe');
          if (prefixes?.length === 0) return undefined;
          return connection.use('subscribe', (client) => client.subscribeToAll(filteredFrom(after, prefixes)));
        },
        accept: (resolved) => {
          const event = toVisibleEvent(resolved);
          return event && matchesFilter(event.streamId, filter) ? event : undefined;
        },
        toError: (error) => connection.failure('subscription', error),
        isClosed: () => !connection.isOpen,
        reportGaveUp: (error) => connection.reportSubscriptionGaveUp(error),
        reportHealthy: () => connection.reportSubscriptionHealthy(),
      },
      options.after,
      handler,
      { onProgress: options.onProgress, onCaughtUp: options.onCaughtUp },
      this.options.resubscribe,
    );
    return this.subscriptions.track(subscription);
  }

  /**
   * The position of the last visible event: reads $all backwards a page at a time, skipping the
   * system and checkpoint events the server keeps writing ($stats, $metadata, checkpoints).
   */
  async headPosition(): Promise<GlobalPosition | undefined> {
    let cursor: GlobalPosition | undefined;
    for (;;) {
      const page = await this.readAllPage('headPosition', cursor ? toClientPosition(cursor) : END, BACKWARDS, HEAD_PAGE_SIZE);
      let advanced = false;
      for (const resolved of page) {
        const position = positionOf(resolved);
        // Backwards reads from a position exclude it; skipping covers either behaviour.
        if (!position || (cursor && comparePositions(position, cursor) >= 0)) continue;
        cursor = position;
        advanced = true;
        if (toVisibleEvent(resolved)) return position;
      }
      if (page.length < HEAD_PAGE_SIZE || !advanced) return undefined;
    }
  }

  /**
   * Readiness: reads the last record of $all (what subscriptions, the relay and the state feeder
   * need, including the permission to read $all), and fails while a subscription has given up.
   */
  async ping(): Promise<void> {
    await this.readAllPage('ping', END, BACKWARDS, 1);
    this.connection.assertSubscriptionsHealthy();
  }

  /** Stops every subscription (after their handlers in flight), then releases the client. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.subscriptions.stopAll();
      await this.connection.close();
    })();
    return this.closing;
  }

  /** An append with an exact expectation ('no_stream' or a revision), sent to the leader. */
  private async appendExact(
    streamId: string,
    data: EventData[],
    expectedRevision: AppendExpectedRevision,
  ): Promise<AppendResult | { readonly kind: 'conflict'; readonly actualRevision: bigint }> {
    const outcome = await this.connection.call('append', async (client, deadline) => {
      try {
        return await client.appendToStream(streamId, data, { expectedRevision, deadline, requiresLeader: true });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) return error;
        throw error;
      }
    });
    if (outcome instanceof WrongExpectedVersionError) return { kind: 'conflict', actualRevision: toActualRevision(outcome.actualVersion) };
    if (!outcome.success) {
      // Only with throwOnAppendFailure=false in the connection string; the batch-append path then
      // misreports the current revision, so read it.
      const last = await this.lastEvent(streamId, 'append');
      return { kind: 'conflict', actualRevision: last?.revision ?? -1n };
    }
    // An idempotent retry comes back without a position: use the one of the original last event.
    const position = outcome.position
      ? toGlobalPosition(outcome.position)
      : ((await this.eventAt(streamId, outcome.nextExpectedRevision))?.position ?? START_POSITION);
    return { kind: 'appended', nextRevision: outcome.nextExpectedRevision, position };
  }

  /**
   * 'any' and 'stream_exists': the server recognises a retry of these only from an in-memory cache
   * of recent ids (lost on restart and leader change). So read the stream from the leader, answer
   * a retry (every id in order at consecutive revisions) as the original append, refuse a partial
   * hit with DuplicateEventIdError (as the SQLite store does), and otherwise append expecting the
   * revision just read, re-reading if another writer came in between.
   */
  private async appendLoose(streamId: string, data: EventData[], expected: 'any' | 'stream_exists'): Promise<AppendResult> {
    for (let attempt = 0; attempt < LOOSE_APPEND_ATTEMPTS; attempt += 1) {
      const existing = await this.connection.read(
        'append',
        (client) => client.readStream(streamId, { direction: FORWARDS, fromRevision: START, requiresLeader: true }),
        (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
      );
      const current = existing.at(-1)?.revision ?? -1n;
      const byId = new Map(existing.map((event) => [event.id.toLowerCase(), event]));
      const hits = data.map((event) => byId.get(event.id.toLowerCase()));
      const first = hits[0];
      if (first && hits.every((hit, index) => hit?.revision === first.revision + BigInt(index))) {
        const last = hits[hits.length - 1] ?? first;
        return { kind: 'appended', nextRevision: last.revision, position: last.position };
      }
      if (!satisfiesExpected(expected, current)) return { kind: 'conflict', streamId, expected, actualRevision: current };
      const index = hits.findIndex((hit) => hit !== undefined);
      if (index >= 0) throw new DuplicateEventIdError(data[index].id, streamId, streamId);
      const outcome = await this.appendExact(streamId, data, current === -1n ? NO_STREAM : current);
      if (outcome.kind !== 'conflict') return outcome;
    }
    throw new EventStoreUnavailableError(
      `EventStoreDB append to ${streamId}: the stream changed during each of ${LOOSE_APPEND_ATTEMPTS} attempts; retry later`,
    );
  }

  /**
   * A filtered readAll as a server-side filtered catch-up subscription (6.2.1's readAll has no
   * server-side filter: a prefix read from the start would scan all of $all on the client). Ends at
   * `limit`, when the server says it caught up (23.10 and later), or at the last record of $all as
   * it was when the read began (older servers, through their filter checkpoints).
   */
  private async readAllFiltered(after: GlobalPosition | undefined, limit: number, prefixes: string[]): Promise<RecordedEvent[]> {
    const [last] = await this.readAllPage('readAll', END, BACKWARDS, 1);
    const head = last ? positionOf(last) : undefined;
    if (!head || (after && comparePositions(after, head) >= 0)) return [];
    const filter: SubscriptionFilter = { streamPrefixes: prefixes };
    return this.connection.read(
      'readAll',
      (client) => subscriptionAsRead(client.subscribeToAll(filteredFrom(after, prefixes))),
      async (items: AsyncIterable<AllStreamResolvedEvent | FilterCheckpoint | typeof CAUGHT_UP>) => {
        const found: RecordedEvent[] = [];
        for await (const item of items) {
          if ('caughtUp' in item) return found;
          const position = 'filterCheckpoint' in item ? item.filterCheckpoint : positionOf(item);
          if (!('filterCheckpoint' in item) && position && (!after || comparePositions(position, after) > 0)) {
            const event = toVisibleEvent(item);
            if (event && matchesFilter(event.streamId, filter)) found.push(event);
            if (found.length === limit) return found;
          }
          if (position && comparePositions(position, head) >= 0) return found;
        }
        throw new EventStoreUnavailableError('EventStoreDB ended the filtered read of $all before it caught up');
      },
    );
  }

  private readAllPage(
    operation: string,
    fromPosition: ReadPosition,
    direction: typeof FORWARDS | typeof BACKWARDS,
    maxCount: number,
  ): Promise<AllStreamResolvedEvent[]> {
    return this.connection.read(
      operation,
      (client) => client.readAll({ fromPosition, direction, maxCount, resolveLinkTos: false }),
      async (resolved: AsyncIterable<AllStreamResolvedEvent>) => {
        const page: AllStreamResolvedEvent[] = [];
        for await (const event of resolved) page.push(event);
        return page;
      },
    );
  }

  /** The last event of a stream from the leader, undefined when the stream does not exist. */
  private async lastEvent(streamId: string, operation: string): Promise<RecordedEvent | undefined> {
    const [last] = await this.connection.read(
      operation,
      (client) => client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true }),
      (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
    );
    return last;
  }

  private async eventAt(streamId: string, revision: bigint): Promise<RecordedEvent | undefined> {
    if (revision < 0n) return undefined;
    const [event] = await this.connection.read(
      'append',
      (client) => client.readStream(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1, requiresLeader: true }),
      (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
    );
    return event?.revision === revision ? event : undefined;
  }

  private async checkExpected(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.lastEvent(streamId, 'append');
    const current = last?.revision ?? -1n;
    if (!satisfiesExpected(expected, current)) return { kind: 'conflict', streamId, expected, actualRevision: current };
    return { kind: 'appended', nextRevision: current, position: last?.position ?? START_POSITION };
  }
}

/**
 * subscribeToAll options from a position: server-side prefix filter (or no system events), with
 * the filter checkpoints pushed into the subscription's stream in order (see FilterCheckpoint).
 */
function filteredFrom(after: GlobalPosition | undefined, prefixes: string[] | undefined) {
  const checkpointReached = (subscription: { push(chunk: unknown): boolean }, position: { commit: bigint; prepare: bigint }): void => {
    subscription.push(filterCheckpoint(toGlobalPosition(position)));
  };
  return {
    // Exclusive: a catch-up subscription from a position starts with the event after it.
    fromPosition: readFrom(after),
    resolveLinkTos: false,
    filter: prefixes ? streamNameFilter({ prefixes, checkpointReached }) : excludeSystemEvents({ checkpointReached }),
  };
}

/** A subscription read like a stream: 'caughtUp' becomes an item in order, cancel() unsubscribes. */
function subscriptionAsRead(subscription: ClientSubscription): ClientRead<AllStreamResolvedEvent | FilterCheckpoint | typeof CAUGHT_UP> {
  subscription.on('caughtUp', () => void subscription.push(CAUGHT_UP));
  return {
    [Symbol.asyncIterator]: () => (subscription as AsyncIterable<AllStreamResolvedEvent | FilterCheckpoint | typeof CAUGHT_UP>)[Symbol.asyncIterator](),
    cancel: () => subscription.unsubscribe(),
    destroy: (error) => subscription.destroy(error),
    readableEnded: false,
  };
}

function resolveOptions(options: EventStoreDbEventStoreOptions): ResolvedOptions {
  const { resubscribe, ...rest } = options;
  const resolved = { ...DEFAULTS, ...withoutUndefined(rest) };
  assertPositiveInteger('operationTimeoutMs', resolved.operationTimeoutMs);
  assertPositiveInteger('readPageSize', resolved.readPageSize);
  assertPositiveInteger('maxAppendBytes', resolved.maxAppendBytes);
  const policy = { ...DEFAULT_RESUBSCRIBE_POLICY, ...withoutUndefined(resubscribe ?? {}) };
  assertPositiveInteger('resubscribe.maxAttempts', policy.maxAttempts);
  return { ...resolved, resubscribe: policy };
}

/** All events of a stream read; [] when the stream does not exist. */
async function collectStream(resolved: AsyncIterable<ResolvedEvent>): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  try {
    for await (const item of resolved) {
      const event = toRecordedEvent(item);
      if (event) events.push(event);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
  return events;
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
