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
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type AppendResult,
  type AppendToStreamOptions,
  type EventData,
  type Filter,
  type GetStreamMetadataResult,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
  type StreamMetadata,
  type SubscribeToAllOptions,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type {
  ClientRead,
  ClientSubscription,
  EventStoreDbClientApi,
  EventStoreDbClientFactory,
  EventStoreDbClientHandle,
} from '../eventstoredb-client.port';

export interface StoredRecord {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  readonly isJson: true;
  readonly revision: bigint;
  readonly created: Date;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position: Position;
}

export type ClientMethod = 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'getStreamMetadata' | 'setStreamMetadata';

/** One call as the fake received it. */
export interface RecordedCall {
  readonly method: ClientMethod;
  readonly streamName?: string;
  readonly options: { readonly requiresLeader?: boolean; readonly direction?: string; readonly filter?: Filter };
}

type FakeSubscription = Readable & ClientSubscription;

export class FakeEventStoreDb {
  readonly log: StoredRecord[] = [];
  readonly calls = { appendToStream: 0, setStreamMetadata: 0, readAll: 0, subscribeToAll: 0 };
  readonly received: RecordedCall[] = [];
  /** Channel operations the adapter asked for. */
  readonly channel = { reconnects: 0, closes: 0, disposes: 0 };
  private readonly streams = new Map<string, StoredRecord[]>();
  private readonly maxCounts = new Map<string, number>();
  private readonly wakers = new Set<() => void>();
  private readonly live = new Set<FakeSubscription>();
  /** Subscriptions the server ended: nothing more is pushed to them. */
  private readonly ended = new WeakSet<FakeSubscription>();
  private readonly failures = new Map<ClientMethod, Error[]>();
  private nextPosition = 1000n;
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
      appendToStream: (name: string, events: EventData[], options: AppendToStreamOptions) => {
        this.received.push({ method: 'appendToStream', streamName: name, options });
        return this.appendToStream(name, events, options.expectedRevision ?? 'any');
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
        const maxCount = this.maxCounts.get(name);
        return { streamName: name, metadata: maxCount === undefined ? undefined : { maxCount } };
      },
      setStreamMetadata: async (name: string, metadata: StreamMetadata, options) => {
        this.received.push({ method: 'setStreamMetadata', streamName: name, options });
        this.assertUp('setStreamMetadata');
        this.calls.setStreamMetadata += 1;
        if (metadata.maxCount !== undefined) this.maxCounts.set(name, Number(metadata.maxCount));
        return this.appendToStream(`$$${name}`, [json('$metadata', { ...metadata })], 'any');
      },
      dispose: async () => {
        this.channel.disposes += 1;
        for (const subscription of this.live) subscription.destroy();
      },
    };
  }

  /** What the server writes on its own, e.g. `$statsCollected` to `$stats-<node>`. */
  writeSystemEvent(streamId = '$stats-127.0.0.1:2113', type = '$statsCollected'): void {
    this.record(streamId, json(type, {}));
  }

  /** Writes events as another client would (bypassing the adapter). */
  writeEvents(streamId: string, count: number, type = 'Written'): StoredRecord[] {
    return Array.from({ length: count }, () => this.record(streamId, json(type, {})));
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

  private assertUp(method: ClientMethod): void {
    if (this.outage) throw this.outage;
    const failure = this.failures.get(method)?.shift();
    if (failure) throw failure;
  }

  private async appendToStream(name: string, events: EventData[], expected: AppendExpectedRevision): Promise<AppendResult> {
    this.assertUp('appendToStream');
    this.calls.appendToStream += 1;
    if (this.hangAppends) return new Promise<never>(() => undefined);
    const stream = this.streams.get(name) ?? [];
    const current = BigInt(stream.length - 1);
    // Idempotent write: the same ids where this append would put them ('any': where the first is,
    // as long as the server still remembers it).
    const ids = events.map((event) => event.id);
    const loose = expected === 'any' || expected === 'stream_exists';
    const startAt =
      expected === 'no_stream' ? 0 : typeof expected === 'bigint' ? Number(expected) + 1 : stream.findIndex((r) => r.id === ids[0]);
    const recognised = !loose || (this.remembersRecentIds && expected === 'any');
    if (recognised && startAt >= 0 && ids.length > 0 && startAt < stream.length) {
      if (ids.every((id, i) => stream[startAt + i]?.id === id)) {
        return { success: true, nextExpectedRevision: BigInt(startAt + ids.length - 1), position: undefined };
      }
      // The server's "corrupted idempotency": a partial match is a wrong expected version.
      if (loose) throw new WrongExpectedVersionError(undefined, { streamName: name, expected, current });
    }
    const satisfied =
      expected === 'any' ||
      (expected === 'no_stream' && current === -1n) ||
      (expected === 'stream_exists' && current >= 0n) ||
      current === expected;
    if (!satisfied) {
      // As append.js builds it (throwOnAppendFailure defaults to true).
      throw new WrongExpectedVersionError(undefined, {
        streamName: name,
        expected,
        current: current === -1n ? 'no_stream' : current,
      });
    }
    let last: StoredRecord | undefined;
    for (const event of events) last = this.record(name, event);
    return { success: true, nextExpectedRevision: last ? last.revision : current, position: last?.position };
  }

  private record(streamId: string, event: EventData): StoredRecord {
    const stream = this.streams.get(streamId) ?? [];
    const commit = this.nextPosition;
    this.nextPosition += 137n;
    const record: StoredRecord = {
      streamId,
      id: event.id,
      type: event.type,
      isJson: true,
      revision: BigInt(stream.length),
      created: new Date(),
      data: JSON.parse(JSON.stringify(event.data)),
      metadata: event.metadata === undefined ? undefined : JSON.parse(JSON.stringify(event.metadata)),
      position: { commit, prepare: commit },
    };
    stream.push(record);
    this.streams.set(streamId, stream);
    this.log.push(record);
    for (const wake of [...this.wakers]) wake();
    return record;
  }

  private readStream(name: string, options: ReadStreamOptions): ClientRead<ResolvedEvent> {
    const all = this.streams.get(name);
    let failure: Error | undefined;
    try {
      this.assertUp('readStream');
    } catch (error) {
      failure = error as Error;
    }
    if (failure || !all) return failing(failure ?? new StreamNotFoundError(undefined, name));
    const maxCount = this.maxCounts.get(name);
    let visible = maxCount === undefined ? all : all.slice(-maxCount);
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    if (typeof from === 'bigint') visible = visible.filter((r) => (backwards ? r.revision <= from : r.revision >= from));
    if (backwards) visible = [...visible].reverse();
    const items = visible
      .slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER))
      .map((event) => ({ event: this.omitStreamPositions ? { ...event, position: undefined } : event }));
    const delayMs = this.streamReadDelayMs;
    if (delayMs === 0) return streamingRead(Readable.from(items));
    return streamingRead(
      Readable.from(
        (async function* slowly() {
          for (const item of items) {
            await new Promise((resolve) => setTimeout(resolve, delayMs));
            yield item;
          }
        })(),
      ),
    );
  }

  private readAll(options: ReadAllOptions): ClientRead<AllStreamResolvedEvent> {
    this.calls.readAll += 1;
    let failure: Error | undefined;
    try {
      this.assertUp('readAll');
      if (this.denyAllReads) throw new AccessDeniedError();
    } catch (error) {
      failure = error as Error;
    }
    if (failure) return failing(failure);
    const backwards = options.direction === 'backwards';
    const from = options.fromPosition ?? (backwards ? 'end' : 'start');
    assertUnsigned(from);
    let events: StoredRecord[];
    if (backwards) {
      // Backwards from a position excludes it.
      events = (from === 'end' ? this.log : this.log.filter((r) => from !== 'start' && r.position.commit < from.commit)).slice().reverse();
    } else {
      // Forwards from a position includes the event at that position.
      events = from === 'start' ? this.log : from === 'end' ? [] : this.log.filter((r) => r.position.commit >= from.commit);
    }
    const items = events
      .slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER))
      .map((event) => ({ event, commitPosition: event.position.commit }));
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
    let failure: Error | undefined;
    try {
      this.assertUp('subscribeToAll');
    } catch (error) {
      failure = error as Error;
    }
    if (failure) {
      const error = failure;
      setImmediate(() => subscription.destroy(error));
    }
    return subscription;
  }
}

/** The client serializes positions as uint64: a negative one makes it throw (seen with google-protobuf). */
function assertUnsigned(position: 'start' | 'end' | Position): void {
  if (typeof position === 'object' && (position.commit < 0n || position.prepare < 0n)) {
    throw new TypeError("Cannot read properties of null (reading 'lo')");
  }
}

export function json(type: string, data: Record<string, unknown>): EventData {
  return { id: randomUUID(), contentType: 'application/json', type, data, metadata: undefined };
}

function streamingRead(readable: Readable): Readable & { cancel(): Promise<void> } {
  return Object.assign(readable, { cancel: async (): Promise<void> => void readable.destroy() });
}

function failing(error: Error): Readable & { cancel(): Promise<void> } {
  return streamingRead(
    new Readable({
      objectMode: true,
      read() {
        this.destroy(error);
      },
    }),
  );
}
