/**
 * An in-memory EventStoreDB seen through the client seam the adapter uses (EventStoreDbClientApi),
 * with fault injection. It follows the behaviour read from @eventstore/db-client 6.2.1's sources
 * and EventStoreDB's documentation: readAll forwards from a position is inclusive, a catch-up
 * subscription from a position is exclusive, an idempotent retry answers without a position,
 * WrongExpectedVersionError as append.js builds it, StreamNotFoundError as a stream error, retries
 * with 'any' recognised only from the server's in-memory cache of recent ids. It is no substitute
 * for the contract suite against a real server (eventstoredb-event-store.int.spec.ts).
 */
import {
  AccessDeniedError,
  StreamNotFoundError,
  UnavailableError,
  type AllStreamResolvedEvent,
  type AppendToStreamOptions,
  type EventData,
  type Filter,
  type GetStreamMetadataResult,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
  type StreamMetadata,
  type SubscribeToAllOptions,
} from '@eventstore/db-client';
import { Readable } from 'node:stream';
import type {
  ClientRead,
  ClientSubscription,
  EventStoreDbClientApi,
  EventStoreDbClientFactory,
  EventStoreDbClientHandle,
} from '../eventstoredb-client.port';
import {
  FakeEventLog,
  assertUnsigned,
  failing,
  json,
  sliceAll,
  sliceStream,
  spaced,
  streamingRead,
  type StoredRecord,
} from './fake-eventstoredb.kit';

export { json, type StoredRecord } from './fake-eventstoredb.kit';

export type ClientMethod = 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'getStreamMetadata' | 'setStreamMetadata';

/** One call as the fake received it. */
export interface RecordedCall {
  readonly method: ClientMethod;
  readonly streamName?: string;
  readonly options: { readonly requiresLeader?: boolean; readonly direction?: string; readonly filter?: Filter };
}

type FakeSubscription = Readable & ClientSubscription;

export class FakeEventStoreDb {
  /** Streams, $all and stream metadata; its clock judges $maxAge. */
  readonly data = new FakeEventLog(() => {
    for (const wake of [...this.wakers]) wake();
  });
  readonly calls = { appendToStream: 0, setStreamMetadata: 0, readAll: 0, subscribeToAll: 0 };
  readonly received: RecordedCall[] = [];
  /** Channel operations the adapter asked for. */
  readonly channel = { reconnects: 0, closes: 0, disposes: 0 };
  private readonly wakers = new Set<() => void>();
  private readonly live = new Set<FakeSubscription>();
  /** Subscriptions the server ended: nothing more is pushed to them. */
  private readonly ended = new WeakSet<FakeSubscription>();
  private readonly failures = new Map<ClientMethod, Error[]>();
  private outage: Error | undefined;
  /** When set, appendToStream never answers (a server that accepted the call and went silent). */
  hangAppends = false;
  /** Whether the server still has the recent ids 'any' appends are checked against (lost on restart or leader change). */
  remembersRecentIds = true;
  /** Delay between the events of a stream read (ms): a long stream that keeps flowing. */
  streamReadDelayMs = 0;
  /** Stream reads return records without a $all position (servers before 22.6). */
  omitStreamPositions = false;
  /** Reading $all is refused (credentials without $all access). */
  denyAllReads = false;
  /** Subscriptions emit 'caughtUp' (servers from 23.10). */
  reportsCaughtUp = true;

  /** Every record in $all order (what $all returns until a scavenge). */
  get log(): StoredRecord[] {
    return this.data.log;
  }

  /** The seam the adapter takes: the client and its channel. */
  handle(): EventStoreDbClientHandle {
    return { client: this.client(), channel: this.channelControl() };
  }

  /** A factory for EventStoreDbEventStore.connect that counts the clients it builds. */
  factory(): EventStoreDbClientFactory & { readonly built: string[] } {
    const built: string[] = [];
    const factory = (connectionString: string): EventStoreDbClientHandle => {
      built.push(connectionString);
      return this.handle();
    };
    return Object.assign(factory, { built });
  }

  client(): EventStoreDbClientApi {
    return {
      appendToStream: async (name: string, events: EventData[], options: AppendToStreamOptions) => {
        this.received.push({ method: 'appendToStream', streamName: name, options });
        this.assertUp('appendToStream');
        this.calls.appendToStream += 1;
        if (this.hangAppends) return new Promise<never>(() => undefined);
        return this.data.append(name, events, options.expectedRevision ?? 'any', this.remembersRecentIds);
      },
      readStream: (name: string, options: ReadStreamOptions) => {
        this.received.push({ method: 'readStream', streamName: name, options });
        return this.readStream(name, options);
      },
      readAll: (options: ReadAllOptions) => {
        this.received.push({ method: 'readAll', options });
        return this.readAll(options);
      },
      subscribeToAll: (options: SubscribeToAllOptions) => {
        this.received.push({ method: 'subscribeToAll', options });
        return this.subscribeToAll(options);
      },
      getStreamMetadata: async (name: string, options): Promise<GetStreamMetadataResult> => {
        this.received.push({ method: 'getStreamMetadata', streamName: name, options });
        this.assertUp('getStreamMetadata');
        const metadata = this.data.metadataOf(name);
        return { streamName: name, metadata: metadata && { ...metadata } };
      },
      setStreamMetadata: async (name: string, metadata: StreamMetadata, options) => {
        this.received.push({ method: 'setStreamMetadata', streamName: name, options });
        this.assertUp('setStreamMetadata');
        this.calls.setStreamMetadata += 1;
        // The metadata is an append to `$$<stream>`: append faults apply to it too.
        this.assertUp('appendToStream');
        this.calls.appendToStream += 1;
        if (this.hangAppends) return new Promise<never>(() => undefined);
        return this.data.setMetadata(name, metadata);
      },
      dispose: async () => {
        this.channel.disposes += 1;
        for (const subscription of this.live) subscription.destroy();
      },
    };
  }

  /** What the server writes on its own, e.g. `$statsCollected` to `$stats-<node>`. */
  writeSystemEvent(streamId = '$stats-127.0.0.1:2113', type = '$statsCollected'): void {
    this.data.record(streamId, json(type, {}));
  }

  /** Writes events as another client would (bypassing the adapter). */
  writeEvents(streamId: string, count: number, type = 'Written'): StoredRecord[] {
    return Array.from({ length: count }, () => this.data.record(streamId, json(type, {})));
  }

  /** Every later call and every live subscription fails like a lost connection. */
  goDown(): void {
    this.outage = new UnavailableError(undefined, '14 UNAVAILABLE: No connection established');
    for (const subscription of this.live) subscription.destroy(this.outage);
  }

  comeBack(): void {
    this.outage = undefined;
  }

  /** The next calls of `method` fail with these errors, one each (a subscription fails right after opening). */
  failNext(method: ClientMethod, ...errors: Error[]): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...errors]);
  }

  /** Ends every live subscription with `error` (e.g. "Consumer too slow"), or without one (a clean end). */
  endSubscriptions(error?: Error): void {
    for (const subscription of [...this.live]) {
      this.live.delete(subscription);
      this.ended.add(subscription);
      if (error) subscription.destroy(error);
      else subscription.push(null);
    }
  }

  get liveSubscriptions(): number {
    return this.live.size;
  }

  private channelControl(): EventStoreDbClientHandle['channel'] {
    return {
      reconnect: async () => void (this.channel.reconnects += 1),
      close: async () => void (this.channel.closes += 1),
    };
  }

  /** The error a call of `method` meets now (an outage or a queued failure), if any. */
  private failureOf(method: ClientMethod): Error | undefined {
    return this.outage ?? this.failures.get(method)?.shift();
  }

  private assertUp(method: ClientMethod): void {
    const failure = this.failureOf(method);
    if (failure) throw failure;
  }

  private readStream(name: string, options: ReadStreamOptions): ClientRead<ResolvedEvent> {
    const all = this.data.visibleEvents(name);
    const failure = this.failureOf('readStream');
    if (failure || !all) return failing(failure ?? new StreamNotFoundError(undefined, name));
    const items = sliceStream(all, options).map((event) => ({
      event: this.omitStreamPositions ? { ...event, position: undefined } : event,
    }));
    return streamingRead(Readable.from(spaced(items, this.streamReadDelayMs)));
  }

  private readAll(options: ReadAllOptions): ClientRead<AllStreamResolvedEvent> {
    this.calls.readAll += 1;
    const failure = this.failureOf('readAll') ?? (this.denyAllReads ? new AccessDeniedError() : undefined);
    if (failure) return failing(failure);
    const items = sliceAll(this.log, options).map((event) => ({ event, commitPosition: event.position.commit }));
    return streamingRead(Readable.from(items));
  }

  private subscribeToAll(options: SubscribeToAllOptions): FakeSubscription {
    this.calls.subscribeToAll += 1;
    const from = options.fromPosition ?? 'start';
    assertUnsigned(from);
    // Exclusive: delivery starts after the given position.
    let cursor = from === 'start' ? -1n : from === 'end' ? (this.log.at(-1)?.position.commit ?? -1n) : from.commit;
    const filter = options.filter;
    const matches = (r: StoredRecord): boolean => {
      if (!filter) return true;
      const subject = filter.filterOn === 'streamName' ? r.streamId : r.type;
      return 'prefixes' in filter ? filter.prefixes.some((p) => subject.startsWith(p)) : new RegExp(filter.regex).test(subject);
    };
    let waiting = false;
    const pump = (): void => {
      if (this.ended.has(subscription)) return;
      for (;;) {
        const next = this.log.find((r) => r.position.commit > cursor && matches(r));
        if (!next) {
          // Like servers from 23.10: the subscription says when it turns live.
          if (!waiting && this.reportsCaughtUp) setImmediate(() => subscription.emit('caughtUp'));
          // Older servers: a filter checkpoint at the end of what was scanned.
          const last = this.log.at(-1);
          if (!waiting && filter?.checkpointReached && last && last.position.commit > cursor) {
            cursor = last.position.commit;
            void filter.checkpointReached(subscription as never, last.position);
          }
          waiting = true;
          return;
        }
        cursor = next.position.commit;
        if (!subscription.push({ event: next, commitPosition: next.position.commit })) return;
      }
    };
    const wake = (): void => {
      if (!waiting) return;
      waiting = false;
      pump();
    };
    const subscription: FakeSubscription = Object.assign(
      new Readable({
        objectMode: true,
        highWaterMark: 2,
        read: () => {
          waiting = false;
          pump();
        },
        destroy: (error, callback) => {
          this.wakers.delete(wake);
          this.live.delete(subscription);
          callback(error);
        },
      }),
      {
        unsubscribe: async () => {
          this.wakers.delete(wake);
          this.live.delete(subscription);
          if (!subscription.destroyed) subscription.push(null);
        },
      },
    );
    this.wakers.add(wake);
    this.live.add(subscription);
    const failure = this.failureOf('subscribeToAll');
    if (failure) {
      const error = failure;
      setImmediate(() => subscription.destroy(error));
    }
    return subscription;
  }
}
