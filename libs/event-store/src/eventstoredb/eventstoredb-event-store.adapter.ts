import { BACKWARDS, END, EventStoreDBClient } from '@eventstore/db-client';
import type {
  AppendResult,
  EventHandler,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  GlobalPosition,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  SubscriptionFilter,
} from '../event-store.port';
import type { AppendOptions } from '../payload-store.port';
import { OpenSubscriptions } from '../open-subscriptions.registry';
import { EventStoreDbAllReader, filteredFrom } from './eventstoredb-all.reader';
import { EventStoreDbAppendWriter } from './eventstoredb-append.writer';
import { EventStoreDbCatchUpSubscription } from './eventstoredb-catch-up.subscription';
import { EventStoreDbCheckpointStore } from './eventstoredb-checkpoint.store';
import {
  createEventStoreDbClient,
  handleOf,
  type EventStoreDbClientFactory,
  type EventStoreDbClientHandle,
} from './eventstoredb-client.port';
import { matchesFilter, toVisibleEvent } from './eventstoredb-event.mapping';
import { resolveOptions, type EventStoreDbEventStoreOptions, type ResolvedOptions } from './eventstoredb-event-store.options';
import { EventStoreDbPayloadStore } from './eventstoredb-payload.store';
import { EventStoreDbPayloadWriter } from './eventstoredb-payload.writer';
import { closeHandle, leaseSharedClient } from './eventstoredb-shared.client';
import { EventStoreDbStreamReader } from './eventstoredb-stream.reader';
import { EventStoreDbConnection } from './eventstoredb.connection';

/**
 * The EventStore port on EventStoreDB (gRPC, @eventstore/db-client 6.2.1); see docs/eventstoredb.md.
 * Appends (EventStoreDbAppendWriter) and the reads that must see them (EventStoreDbStreamReader)
 * go to the leader. A filtered readAll runs as a server-side filtered catch-up subscription
 * (EventStoreDbAllReader). System events ($-streams, $-types), checkpoint streams and payload
 * streams are never shown; payloads are read through payloads() (EventStoreDbPayloadStore).
 */
export class EventStoreDbEventStore implements EventStore {
  readonly maxEventBytes: number;
  private readonly subscriptions = new OpenSubscriptions();
  private readonly checkpointStore: EventStoreDbCheckpointStore;
  private readonly streams: EventStoreDbStreamReader;
  private readonly all: EventStoreDbAllReader;
  private readonly writer: EventStoreDbAppendWriter;
  private readonly payloadStore: EventStoreDbPayloadStore;

  private constructor(
    private readonly connection: EventStoreDbConnection,
    private readonly options: ResolvedOptions,
  ) {
    this.checkpointStore = new EventStoreDbCheckpointStore(connection);
    this.maxEventBytes = options.maxAppendBytes;
    this.streams = new EventStoreDbStreamReader(connection);
    this.all = new EventStoreDbAllReader(connection, options.readPageSize);
    this.writer = new EventStoreDbAppendWriter(connection, this.streams, this.maxEventBytes, new EventStoreDbPayloadWriter(connection));
    this.payloadStore = new EventStoreDbPayloadStore(connection, this.all);
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

  append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision, options?: AppendOptions): Promise<AppendResult> {
    return this.writer.append(streamId, events, expected, options);
  }

  /** The payload store on the same client (one instance per store). */
  payloads(): EventStoreDbPayloadStore {
    return this.payloadStore;
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    return this.streams.readStream(streamId, options);
  }

  streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    return this.streams.streamHeads(streamIds);
  }

  /** EventStoreDB reads a stream at a time: the streams' first events read concurrently. */
  async readFirstEvents(streamIds: readonly string[]): Promise<ReadonlyMap<string, RecordedEvent>> {
    const found = new Map<string, RecordedEvent>();
    await Promise.all(
      [...new Set(streamIds)].map(async (streamId) => {
        const [first] = await this.streams.readStream(streamId, { maxCount: 1 });
        if (first) found.set(streamId, first);
      }),
    );
    return found;
  }

  readAll(options: ReadAllOptions): Promise<readonly RecordedEvent[]> {
    return this.all.readAll(options);
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

  headPosition(): Promise<GlobalPosition | undefined> {
    return this.all.headPosition();
  }

  /**
   * Readiness: reads the last record of $all (what subscriptions, the relay and the state feeder
   * need, including the permission to read $all), and fails while a subscription has given up.
   */
  async ping(): Promise<void> {
    await this.all.page('ping', END, BACKWARDS, 1);
    this.connection.assertSubscriptionsHealthy();
  }

  /** Stops every subscription (after their handlers in flight), then releases the client. Idempotent. */
  close(): Promise<void> {
    return this.subscriptions.closeThen(() => this.connection.close());
  }
}
