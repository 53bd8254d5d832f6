/**
 * The adapter's own logic (paging, skipping, value mapping, subscription lifecycle, guards) against
 * an in-memory stand-in for @eventstore/db-client. The stand-in follows the behaviour read from the
 * client's sources and EventStoreDB's documentation (readAll forwards from a position is inclusive,
 * a catch-up subscription from a position is exclusive, an idempotent retry answers without a
 * position, WrongExpectedVersionError as append.js builds it, StreamNotFoundError as a stream
 * error). It is no substitute for the contract suite against a real server (the .int.spec).
 */
import {
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type AppendResult as ClientAppendResult,
  type EventData,
  type EventStoreDBClient,
  type Filter,
  type Position,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { checkpointContract } from '../contract/checkpoint.contract';
import { newNamespace, type ContractContext, type EventStoreContractSubject } from '../contract/contract.fixtures';
import { readContract } from '../contract/read.contract';
import { subscriptionContract } from '../contract/subscription.contract';
import { EventStoreUnavailableError, type EventToAppend, type RecordedEvent } from '../event-store.port';
import { CHECKPOINT_EVENT_TYPE, checkpointStreamOf } from './eventstoredb-checkpoint.store';
import { EventStoreDbEventStore } from './eventstoredb-event-store.adapter';

interface StoredRecord {
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

type StreamingRead = Readable & { cancel(): Promise<void> };
type FakeSubscription = Readable & { unsubscribe(): Promise<void> };

/** An in-memory EventStoreDB as seen through the subset of the client the adapter uses. */
class FakeEventStoreDb {
  readonly log: StoredRecord[] = [];
  readonly calls = { appendToStream: 0, setStreamMetadata: 0, readAll: 0, subscribeToAll: 0 };
  private readonly streams = new Map<string, StoredRecord[]>();
  private readonly maxCounts = new Map<string, number>();
  private readonly wakers = new Set<() => void>();
  private readonly live = new Set<FakeSubscription>();
  private nextPosition = 1000n;
  private outage: Error | undefined;
  /** When set, appendToStream never answers (a server that accepted the call and went silent). */
  hangAppends = false;

  client(): EventStoreDBClient {
    const client = {
      appendToStream: (name: string, events: EventData | EventData[], options?: { expectedRevision?: AppendExpectedRevision }) =>
        this.appendToStream(name, Array.isArray(events) ? events : [events], options?.expectedRevision ?? 'any'),
      readStream: (name: string, options?: { direction?: string; fromRevision?: 'start' | 'end' | bigint; maxCount?: number | bigint }) =>
        this.readStream(name, options ?? {}),
      readAll: (options?: { direction?: string; fromPosition?: 'start' | 'end' | Position; maxCount?: number | bigint }) =>
        this.readAll(options ?? {}),
      subscribeToAll: (options?: { fromPosition?: 'start' | 'end' | Position; filter?: Filter }) =>
        this.subscribeToAll(options ?? {}),
      getStreamMetadata: async (name: string) => {
        this.assertUp();
        const maxCount = this.maxCounts.get(name);
        return { streamName: name, metadata: maxCount === undefined ? undefined : { maxCount } };
      },
      setStreamMetadata: async (name: string, metadata: { maxCount?: number }) => {
        this.assertUp();
        this.calls.setStreamMetadata += 1;
        if (metadata.maxCount !== undefined) this.maxCounts.set(name, metadata.maxCount);
        return this.appendToStream(`$$${name}`, [json('$metadata', metadata)], 'any');
      },
      dispose: async () => {
        for (const subscription of this.live) subscription.destroy();
      },
    };
    return client as unknown as EventStoreDBClient;
  }

  /** What the server writes on its own, e.g. `$statsCollected` to `$stats-<node>`. */
  writeSystemEvent(streamId = '$stats-127.0.0.1:2113', type = '$statsCollected'): void {
    this.record(streamId, json(type, {}));
  }

  /** Every later call and every live subscription fails like a lost connection. */
  goDown(): void {
    this.outage = new UnavailableError(undefined, '14 UNAVAILABLE: No connection established');
    for (const subscription of this.live) subscription.destroy(this.outage);
  }

  private assertUp(): void {
    if (this.outage) throw this.outage;
  }

  private async appendToStream(name: string, events: EventData[], expected: AppendExpectedRevision): Promise<ClientAppendResult> {
    this.assertUp();
    this.calls.appendToStream += 1;
    if (this.hangAppends) return new Promise<never>(() => undefined);
    const stream = this.streams.get(name) ?? [];
    const current = BigInt(stream.length - 1);
    // Idempotent write: the same ids where this append would put them ('any': where the first is).
    const ids = events.map((event) => event.id);
    const startAt =
      expected === 'no_stream' ? 0 : typeof expected === 'bigint' ? Number(expected) + 1 : stream.findIndex((r) => r.id === ids[0]);
    if (expected !== 'stream_exists' && startAt >= 0 && ids.length > 0 && ids.every((id, i) => stream[startAt + i]?.id === id)) {
      return { success: true, nextExpectedRevision: BigInt(startAt + ids.length - 1), position: undefined };
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

  private readStream(
    name: string,
    options: { direction?: string; fromRevision?: 'start' | 'end' | bigint; maxCount?: number | bigint },
  ): StreamingRead {
    const all = this.streams.get(name);
    if (this.outage || !all) {
      const error = this.outage ?? new StreamNotFoundError(undefined, name);
      return streamingRead(new Readable({ objectMode: true, read() { this.destroy(error); } }));
    }
    const maxCount = this.maxCounts.get(name);
    let visible = maxCount === undefined ? all : all.slice(-maxCount);
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    if (typeof from === 'bigint') visible = visible.filter((r) => (backwards ? r.revision <= from : r.revision >= from));
    if (backwards) visible = [...visible].reverse();
    const items = visible.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)).map((event) => ({ event }));
    return streamingRead(Readable.from(items));
  }

  private readAll(options: { direction?: string; fromPosition?: 'start' | 'end' | Position; maxCount?: number | bigint }): StreamingRead {
    this.calls.readAll += 1;
    if (this.outage) {
      const error = this.outage;
      return streamingRead(new Readable({ objectMode: true, read() { this.destroy(error); } }));
    }
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

  private subscribeToAll(options: { fromPosition?: 'start' | 'end' | Position; filter?: Filter }): FakeSubscription {
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
      for (;;) {
        const next = this.log.find((r) => r.position.commit > cursor && matches(r));
        if (!next) {
          // Like servers from 23.10: the subscription says when it turns live.
          if (!waiting) setImmediate(() => subscription.emit('caughtUp'));
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
    const subscription = Object.assign(
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
    if (this.outage) {
      const error = this.outage;
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

function json(type: string, data: object): EventData {
  return { id: randomUUID(), contentType: 'application/json', type, data: data as Record<string, unknown>, metadata: undefined } as EventData;
}

function streamingRead(readable: Readable): StreamingRead {
  return Object.assign(readable, { cancel: async () => void readable.destroy() });
}

function newEvent(type = 'Tested'): EventToAppend {
  return { id: randomUUID(), type, data: { type }, metadata: { correlationId: randomUUID() } };
}

describe('EventStoreDbEventStore on an in-memory stand-in for the client', () => {
  let server: FakeEventStoreDb;
  const open: EventStoreDbEventStore[] = [];
  const connect = (options?: Parameters<typeof EventStoreDbEventStore.fromClient>[1]): EventStoreDbEventStore => {
    const store = EventStoreDbEventStore.fromClient(server.client(), options);
    open.push(store);
    return store;
  };

  beforeEach(() => {
    server = new FakeEventStoreDb();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });

  describe('the read, subscription and checkpoint contracts', () => {
    let current: ContractContext | undefined;
    const context = (): ContractContext => {
      if (!current) throw new Error('contract context used outside a test');
      return current;
    };
    beforeEach(() => {
      // Small pages so the contracts also exercise paging; system events interleaved everywhere.
      const store = connect({ readPageSize: 2 });
      server.writeSystemEvent();
      const subject: EventStoreContractSubject = {
        store,
        checkpoints: store.checkpoints(),
        reopen: async () => {
          const reopened = connect({ readPageSize: 2 });
          return { store: reopened, checkpoints: reopened.checkpoints() };
        },
        cleanup: async () => undefined,
      };
      current = { subject, ns: newNamespace() };
    });
    afterEach(() => {
      current = undefined;
    });

    readContract(context);
    subscriptionContract(context);
    checkpointContract(context);
  });

  describe('append', () => {
    it('returns appended values with the position of the last event', async () => {
      const store = connect();
      const result = await store.append('s-1', [newEvent(), newEvent()], 'no_stream');
      const read = await store.readStream('s-1');

      expect(result).toEqual({ kind: 'appended', nextRevision: 1n, position: read[1].position });
      expect(read.map((event) => event.revision)).toEqual([0n, 1n]);
    });

    it('returns conflicts as values, -1n for a missing stream', async () => {
      const store = connect();
      await store.append('existing', [newEvent(), newEvent()], 'no_stream');
      const cases: [string, 'no_stream' | 'stream_exists' | bigint, bigint][] = [
        ['existing', 'no_stream', 1n],
        ['missing', 'stream_exists', -1n],
        ['existing', 0n, 1n],
        ['missing', 0n, -1n],
      ];
      for (const [streamId, expected, actualRevision] of cases) {
        expect(await store.append(streamId, [newEvent()], expected)).toEqual({ kind: 'conflict', streamId, expected, actualRevision });
      }
    });

    it("answers an idempotent retry (no position from the server) with the original event's position", async () => {
      const store = connect();
      const events = [newEvent(), newEvent()];
      const original = await store.append('s-1', events, 'no_stream');
      await store.append('s-1', [newEvent()], 1n);

      expect(await store.append('s-1', events, 'no_stream')).toEqual(original);
      expect(await store.append('s-1', events, 'any')).toEqual(original);
      expect(await store.readStream('s-1')).toHaveLength(3);
    });

    it('checks only the expectation for an empty append, without writing', async () => {
      const store = connect();
      expect(await store.append('s-1', [], 'no_stream')).toEqual({ kind: 'appended', nextRevision: -1n, position: { commit: -1n, prepare: -1n } });
      await store.append('s-1', [newEvent()], 'no_stream');
      const [only] = await store.readStream('s-1');

      expect(await store.append('s-1', [], 0n)).toEqual({ kind: 'appended', nextRevision: 0n, position: only.position });
      expect(await store.append('s-1', [], 'no_stream')).toMatchObject({ kind: 'conflict', actualRevision: 0n });
      expect(server.calls.appendToStream).toBe(1);
    });

    it('gives up on a server that never answers, as EventStoreUnavailableError', async () => {
      const store = connect({ operationTimeoutMs: 50 });
      server.hangAppends = true;
      await expect(store.append('s-1', [newEvent()], 'any')).rejects.toThrow(
        expect.objectContaining({ name: 'EventStoreUnavailableError', message: expect.stringMatching(/did not answer within 1050 ms/) }),
      );
    });
  });

  describe('reads', () => {
    it('reads a missing stream as []', async () => {
      expect(await connect().readStream('nothing')).toEqual([]);
    });

    it('hides system and checkpoint events from readAll and headPosition', async () => {
      const store = connect({ readPageSize: 2 });
      server.writeSystemEvent();
      await store.append('s-1', [newEvent()], 'no_stream');
      server.writeSystemEvent();
      await store.checkpoints().save('projector', { commit: 5n, prepare: 5n });
      for (let index = 0; index < 40; index += 1) server.writeSystemEvent();
      const [only] = await store.readStream('s-1');

      const all = await store.readAll({ limit: 100 });

      expect(all.map((event) => event.id)).toEqual([only.id]);
      expect(await store.headPosition()).toEqual(only.position);
      expect(server.log.some((record) => record.streamId === checkpointStreamOf('projector'))).toBe(true);
    });

    it('has no head while only system events exist', async () => {
      const store = connect();
      expect(await store.headPosition()).toBeUndefined();
      for (let index = 0; index < 70; index += 1) server.writeSystemEvent();
      expect(await store.headPosition()).toBeUndefined();
    });

    it('pages through $all until `limit` matching events were found', async () => {
      const store = connect({ readPageSize: 3 });
      const wanted: string[] = [];
      for (let index = 0; index < 10; index += 1) {
        await store.append(`other-${index}`, [newEvent()], 'no_stream');
        const event = newEvent();
        wanted.push(event.id);
        await store.append(`delivery-${index}`, [event], 'no_stream');
      }

      const first = await store.readAll({ limit: 4, filter: { streamPrefixes: ['delivery-'] } });
      const rest = await store.readAll({ after: first[3].position, limit: 100, filter: { streamPrefixes: ['delivery-'] } });

      expect(first.map((event) => event.id)).toEqual(wanted.slice(0, 4));
      expect(rest.map((event) => event.id)).toEqual(wanted.slice(4));
    });
  });

  describe('subscriptions', () => {
    it('asks the server to filter by prefix and to start after the position', async () => {
      const store = connect();
      await store.append('delivery-1', [newEvent()], 'no_stream');
      const [first] = await store.readStream('delivery-1');
      const second = newEvent();
      await store.append('delivery-1', [second], 0n);
      const seen: RecordedEvent[] = [];

      const subscription = store.subscribeToAll({ after: first.position, filter: { streamPrefixes: ['delivery-'] } }, (event) => {
        seen.push(event);
      });
      while (seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 2));
      await subscription.stop();

      expect(seen.map((event) => event.id)).toEqual([second.id]);
    });

    it('treats START_POSITION as "from the beginning" (unsigned server positions cannot express -1)', async () => {
      const store = connect();
      const event = newEvent();
      await store.append('delivery-1', [event], 'no_stream');
      const seen: RecordedEvent[] = [];

      const subscription = store.subscribeToAll({ after: { commit: -1n, prepare: -1n } }, (recorded) => void seen.push(recorded));
      while (seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 2));
      await subscription.stop();

      expect(seen.map((recorded) => recorded.id)).toEqual([event.id]);
      expect((await store.readAll({ after: { commit: -1n, prepare: -1n }, limit: 10 })).map((recorded) => recorded.id)).toEqual([event.id]);
    });

    it('never delivers checkpoint events, even to an unfiltered subscription', async () => {
      const store = connect();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({}, (event) => void seen.push(event));
      await store.checkpoints().save('projector', { commit: 1n, prepare: 1n });
      server.writeSystemEvent();
      await store.append('delivery-1', [newEvent()], 'no_stream');
      while (seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 2));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await subscription.stop();

      expect(seen.map((event) => event.streamId)).toEqual(['delivery-1']);
    });

    it('rejects done with EventStoreUnavailableError when the connection is lost', async () => {
      const store = connect();
      const subscription = store.subscribeToAll({}, () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));

      server.goDown();

      await expect(subscription.done).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(subscription.stop()).resolves.toBeUndefined();
    });
  });

  describe('checkpoints', () => {
    it('caps each checkpoint stream at one event, setting the metadata once', async () => {
      const store = connect();
      const checkpoints = store.checkpoints();
      for (let commit = 1n; commit <= 3n; commit += 1n) await checkpoints.save('projector', { commit, prepare: commit });
      const again = connect().checkpoints();
      await again.save('projector', { commit: 4n, prepare: 4n });

      expect(server.calls.setStreamMetadata).toBe(1);
      expect(await again.load('projector')).toEqual({ commit: 4n, prepare: 4n });
      const events = server.log.filter((record) => record.streamId === checkpointStreamOf('projector'));
      expect(events.map((record) => record.type)).toEqual(Array(4).fill(CHECKPOINT_EVENT_TYPE));
    });
  });
});
