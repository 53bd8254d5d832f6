import { OpenSubscriptions } from '../open-subscriptions';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { InvalidAppendError } from '../event-store.errors';
import {
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
import { EventStoreDbCatchUpSubscription } from './eventstoredb-catch-up.subscription';
import { EventStoreDbCheckpointStore } from './eventstoredb-checkpoint.store';
import {
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
import { EventStoreDbConnection } from './eventstoredb.connection';

export interface EventStoreDbEventStoreOptions {
  /** Deadline of one call to the server (ms). Default 10000, like the client's defaultDeadline. */
  readonly operationTimeoutMs?: number;
  /** Events fetched per request by readAll (which filters client-side). Default 256. */
  readonly readPageSize?: number;
  /**
   * The server's MaxAppendSize (bytes; EventStoreDB's default is 1 MiB): larger events are refused
   * here with InvalidAppendError instead of by the server. Default 1048576.
   */
  readonly maxAppendBytes?: number;
}

const DEFAULTS = { operationTimeoutMs: 10_000, readPageSize: 256, maxAppendBytes: 1_048_576 } as const;

/** Events read backwards per request by headPosition() while skipping system events. */
const HEAD_PAGE_SIZE = 32;

/** A user stream that is never written: reading it is ping()'s cheap round trip. */
const PING_STREAM = 'wts-ping';

/**
 * The EventStore port on EventStoreDB (gRPC, @eventstore/db-client 6.x). Conflicts are values
 * (WrongExpectedVersionError), idempotent retries are the server's own idempotent writes, readAll
 * filters client-side (this client's readAll has no server-side filter), subscriptions filter
 * server-side. System events ($-streams, $-types) and checkpoint streams are never shown.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly maxEventBytes: number;
  private readonly subscriptions = new OpenSubscriptions();
  private readonly checkpointStore: EventStoreDbCheckpointStore;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly connection: EventStoreDbConnection,
    private readonly options: Required<EventStoreDbEventStoreOptions>,
  ) {
    this.checkpointStore = new EventStoreDbCheckpointStore(connection);
    this.maxEventBytes = options.maxAppendBytes;
  }

  /**
   * Creates the client from a connection string (`esdb://host:2113?tls=false`, see the client's
   * docs). Connects lazily: an unreachable server shows up as EventStoreUnavailableError on use.
   */
  static connect(connectionString: string, options: EventStoreDbEventStoreOptions = {}): EventStoreDbEventStore {
    let client: EventStoreDBClient;
    try {
      client = EventStoreDBClient.connectionString(connectionString);
    } catch (error) {
      throw new Error(`invalid EventStoreDB connection string: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    return EventStoreDbEventStore.fromClient(client, options);
  }

  /** Wraps an existing client; close() disposes it. */
  static fromClient(client: EventStoreDBClient, options: EventStoreDbEventStoreOptions = {}): EventStoreDbEventStore {
    const resolved = { ...DEFAULTS, ...withoutUndefined(options) };
    assertPositiveInteger('operationTimeoutMs', resolved.operationTimeoutMs);
    assertPositiveInteger('readPageSize', resolved.readPageSize);
    assertPositiveInteger('maxAppendBytes', resolved.maxAppendBytes);
    return new EventStoreDbEventStore(
      new EventStoreDbConnection(client, { operationTimeoutMs: resolved.operationTimeoutMs }),
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
    const data = toEventData(events, this.maxEventBytes);
    const expectedRevision = toExpectedRevision(expected);
    // The server answers an empty append on a missing stream with "no_stream", which this client
    // reports as revision 0: check the expectation by reading instead (nothing is written anyway).
    if (data.length === 0) return this.checkExpected(streamId, expected);

    const outcome = await this.connection.call('append', async (client, deadline) => {
      try {
        return await client.appendToStream(streamId, data, { expectedRevision, deadline });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) return error;
        throw error;
      }
    });
    if (outcome instanceof WrongExpectedVersionError) {
      return { kind: 'conflict', streamId, expected, actualRevision: toActualRevision(outcome.actualVersion) };
    }
    if (!outcome.success) {
      // Only with throwOnAppendFailure=false in the connection string; the batch-append path then
      // misreports the current revision, so read it.
      const last = await this.lastEvent(streamId);
      return { kind: 'conflict', streamId, expected, actualRevision: last?.revision ?? -1n };
    }
    // An idempotent retry comes back without a position: use the one of the original last event.
    const position = outcome.position
      ? toGlobalPosition(outcome.position)
      : ((await this.eventAt(streamId, outcome.nextExpectedRevision))?.position ?? START_POSITION);
    return { kind: 'appended', nextRevision: outcome.nextExpectedRevision, position };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    const { fromRevision, maxCount } = options;
    if (maxCount !== undefined && (!Number.isSafeInteger(maxCount) || maxCount < 0)) {
      throw new RangeError(`readStream maxCount must be a non-negative integer, got ${maxCount}`);
    }
    if (maxCount === 0) return [];
    return this.connection.read(
      'readStream',
      (client) =>
        client.readStream(streamId, {
          direction: FORWARDS,
          fromRevision: fromRevision === undefined || fromRevision <= 0n ? START : fromRevision,
          ...(maxCount === undefined ? {} : { maxCount }),
        }),
      (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
    );
  }

  /** One backwards read of one event per stream, in parallel, from the leader. */
  async streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    const unique = [...new Set(streamIds)];
    const heads = await Promise.all(
      unique.map(async (streamId) => {
        const [last] = await this.connection.read(
          'streamHeads',
          (client) => client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true }),
          (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
        );
        return [streamId, last?.revision ?? -1n] as const;
      }),
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
    const filter = options.filter?.streamPrefixes ? { streamPrefixes: options.filter.streamPrefixes } : undefined;
    if (options.limit === 0 || filter?.streamPrefixes.length === 0) return [];

    const found: RecordedEvent[] = [];
    // Exclusive lower bound. readAll's fromPosition is inclusive, so the event at `after` comes
    // back first and is skipped here, as is the last event of the previous page.
    let cursor = options.after;
    for (;;) {
      // Unfiltered, one extra event covers the event at `cursor` that is read again.
      const pageSize = filter ? this.options.readPageSize : Math.min(this.options.readPageSize, options.limit - found.length + 1);
      const fromPosition: ReadPosition = readFrom(cursor);
      const page = await this.readAllPage('readAll', fromPosition, FORWARDS, pageSize);
      let advanced = false;
      for (const resolved of page) {
        const position = requirePosition(resolved);
        if (cursor && comparePositions(position, cursor) <= 0) continue;
        cursor = position;
        advanced = true;
        const event = toVisibleEvent(resolved);
        if (!event || !matchesFilter(event.streamId, filter)) continue;
        found.push(event);
        if (found.length === options.limit) return found;
      }
      if (page.length < pageSize || !advanced) return found;
    }
  }

  subscribeToAll(options: SubscribeOptions, handler: EventHandler): Subscription {
    const prefixes = options.filter?.streamPrefixes?.slice();
    const filter: SubscriptionFilter | undefined = prefixes ? { streamPrefixes: prefixes } : undefined;
    const after = options.after;
    const subscription = new EventStoreDbCatchUpSubscription(
      {
        open: () => {
          this.connection.assertOpen('subscribe');
          if (prefixes?.length === 0) return undefined;
          return this.connection.use('subscribe', (client) =>
            client.subscribeToAll({
              // Exclusive: a catch-up subscription from a position starts with the event after it.
              fromPosition: readFrom(after),
              resolveLinkTos: false,
              // Checkpoints carry a filtered subscription past long stretches of other streams.
              filter: prefixes
                ? streamNameFilter({ prefixes, checkpointReached: (_subscription, position) => options.onProgress?.(toGlobalPosition(position)) })
                : excludeSystemEvents(),
            }),
          );
        },
        accept: (resolved) => {
          const event = toVisibleEvent(resolved);
          return event && matchesFilter(event.streamId, filter) ? event : undefined;
        },
      },
      after,
      handler,
      { onProgress: options.onProgress, onCaughtUp: options.onCaughtUp },
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
        const position = requirePosition(resolved);
        // Backwards reads from a position exclude it; skipping covers either behaviour.
        if (cursor && comparePositions(position, cursor) >= 0) continue;
        cursor = position;
        advanced = true;
        if (toVisibleEvent(resolved)) return position;
      }
      if (page.length < HEAD_PAGE_SIZE || !advanced) return undefined;
    }
  }

  /** Reads one user stream that never exists: a full round trip that needs no $all permission. */
  async ping(): Promise<void> {
    await this.connection.read(
      'ping',
      (client) => client.readStream(PING_STREAM, { maxCount: 1 }),
      async (resolved: AsyncIterable<ResolvedEvent>) => {
        await collectStream(resolved);
      },
    );
  }

  /** Stops every subscription (after their handlers in flight), then disposes the client. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.subscriptions.stopAll();
      await this.connection.close();
    })();
    return this.closing;
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

  /** The last event of a stream, undefined when the stream does not exist. */
  private async lastEvent(streamId: string): Promise<RecordedEvent | undefined> {
    const [last] = await this.connection.read(
      'append',
      (client) => client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
      (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
    );
    return last;
  }

  private async eventAt(streamId: string, revision: bigint): Promise<RecordedEvent | undefined> {
    if (revision < 0n) return undefined;
    const [event] = await this.connection.read(
      'append',
      (client) => client.readStream(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 }),
      (resolved: AsyncIterable<ResolvedEvent>) => collectStream(resolved),
    );
    return event?.revision === revision ? event : undefined;
  }

  private async checkExpected(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.lastEvent(streamId);
    const current = last?.revision ?? -1n;
    if (!satisfiesExpected(expected, current)) return { kind: 'conflict', streamId, expected, actualRevision: current };
    return { kind: 'appended', nextRevision: current, position: last?.position ?? START_POSITION };
  }
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

function requirePosition(resolved: AllStreamResolvedEvent): GlobalPosition {
  const position = positionOf(resolved);
  if (!position) throw new Error('EventStoreDB returned an event of $all without a position');
  return position;
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}

function withoutUndefined(options: EventStoreDbEventStoreOptions): EventStoreDbEventStoreOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
