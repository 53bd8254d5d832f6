/**
 * The data of the in-memory EventStoreDB (FakeEventStoreDb): streams, the $all log, stream
 * metadata, and what a stream read may see of them. Kept apart from the client surface and fault
 * injection so each stays readable. Visibility follows EventStoreDB's documented rules: $maxCount,
 * $maxAge and $tb (truncateBefore) hide events from stream reads at once, while $all keeps
 * returning them until a scavenge (which this fake never runs). A stream whose every event is
 * hidden reads as empty, not as "not found" (it still has a last event number; unverified against
 * a server, see docs/eventstoredb.md).
 */
import {
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type AppendResult,
  type EventData,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StreamMetadata,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';

export interface StoredRecord {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  /** False for binary events (data is then the bytes as written). */
  readonly isJson: boolean;
  readonly revision: bigint;
  readonly created: Date;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position: Position;
}

export class FakeEventLog {
  readonly log: StoredRecord[] = [];
  /** The server's clock (epoch ms): $maxAge is judged against it. */
  clock: () => number = Date.now;
  private readonly streams = new Map<string, StoredRecord[]>();
  private readonly metadata = new Map<string, StreamMetadata>();
  private nextPosition = 1000n;

  constructor(private readonly onRecord: () => void) {}

  /** The stream's metadata as the last setStreamMetadata left it (the server keeps only the latest). */
  metadataOf(name: string): StreamMetadata | undefined {
    return this.metadata.get(name);
  }

  /** Validates like the client's prepareStreamMetadata (integers only), then records the `$metadata` event. */
  setMetadata(name: string, metadata: StreamMetadata): AppendResult {
    for (const key of ['maxAge', 'maxCount', 'truncateBefore'] as const) {
      const value = metadata[key];
      if (value !== undefined && !Number.isInteger(value)) throw new Error(`Invalid stream metadata: "${key}" must be an integer.`);
    }
    this.metadata.set(name, { ...metadata });
    return this.append(`$$${name}`, [json('$metadata', { ...metadata })], 'any', true);
  }

  /** undefined when the stream was never written; otherwise what a stream read may see, in order. */
  visibleEvents(name: string): StoredRecord[] | undefined {
    const all = this.streams.get(name);
    if (!all) return undefined;
    const { maxCount, maxAge, truncateBefore } = this.metadata.get(name) ?? {};
    const now = this.clock();
    let visible = maxCount === undefined ? all : all.slice(-maxCount);
    if (typeof truncateBefore === 'number') visible = visible.filter((r) => r.revision >= BigInt(truncateBefore));
    if (maxAge !== undefined) visible = visible.filter((r) => now - r.created.getTime() < maxAge * 1000);
    return visible;
  }

  append(name: string, events: EventData[], expected: AppendExpectedRevision, remembersRecentIds: boolean): AppendResult {
    const stream = this.streams.get(name) ?? [];
    const current = BigInt(stream.length - 1);
    // Idempotent write: the same ids where this append would put them ('any': where the first is,
    // as long as the server still remembers it).
    const ids = events.map((event) => event.id);
    const loose = expected === 'any' || expected === 'stream_exists';
    const startAt =
      expected === 'no_stream' ? 0 : typeof expected === 'bigint' ? Number(expected) + 1 : stream.findIndex((r) => r.id === ids[0]);
    const recognised = !loose || (remembersRecentIds && expected === 'any');
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

  record(streamId: string, event: EventData): StoredRecord {
    const stream = this.streams.get(streamId) ?? [];
    const commit = this.nextPosition;
    this.nextPosition += 137n;
    const isJson = event.contentType === 'application/json';
    const record: StoredRecord = {
      streamId,
      id: event.id,
      type: event.type,
      isJson,
      revision: BigInt(stream.length),
      created: new Date(this.clock()),
      data: isJson ? JSON.parse(JSON.stringify(event.data)) : Uint8Array.from(event.data as Uint8Array),
      metadata: storedMetadata(event.metadata),
      position: { commit, prepare: commit },
    };
    stream.push(record);
    this.streams.set(streamId, stream);
    this.log.push(record);
    this.onRecord();
    return record;
  }
}

export function json(type: string, data: Record<string, unknown>): EventData {
  return { id: randomUUID(), contentType: 'application/json', type, data, metadata: undefined };
}

/** As the client reads metadata back: JSON when the bytes parse, else the bytes. */
function storedMetadata(metadata: unknown): unknown {
  if (metadata === undefined) return undefined;
  if (!(metadata instanceof Uint8Array)) return JSON.parse(JSON.stringify(metadata));
  try {
    return JSON.parse(Buffer.from(metadata).toString('utf8'));
  } catch {
    return Uint8Array.from(metadata);
  }
}

/** A stream read's slice of the visible events: direction, first revision (inclusive), count. */
export function sliceStream(visible: StoredRecord[], options: ReadStreamOptions): StoredRecord[] {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? 'end' : 'start');
  let events = visible;
  if (typeof from === 'bigint') events = events.filter((r) => (backwards ? r.revision <= from : r.revision >= from));
  if (backwards) events = [...events].reverse();
  return events.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER));
}

/** A read of $all: forwards from a position includes it, backwards from a position excludes it. */
export function sliceAll(log: StoredRecord[], options: ReadAllOptions): StoredRecord[] {
  const backwards = options.direction === 'backwards';
  const from = options.fromPosition ?? (backwards ? 'end' : 'start');
  assertUnsigned(from);
  const events = backwards
    ? (from === 'end' ? log : log.filter((r) => from !== 'start' && r.position.commit < from.commit)).slice().reverse()
    : from === 'start'
      ? log
      : from === 'end'
        ? []
        : log.filter((r) => r.position.commit >= from.commit);
  return events.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER));
}

/** The client serializes positions as uint64: a negative one makes it throw (seen with google-protobuf). */
export function assertUnsigned(position: 'start' | 'end' | Position): void {
  if (typeof position === 'object' && (position.commit < 0n || position.prepare < 0n)) {
    throw new TypeError("Cannot read properties of null (reading 'lo')");
  }
}

export function streamingRead(readable: Readable): Readable & { cancel(): Promise<void> } {
  return Object.assign(readable, { cancel: async (): Promise<void> => void readable.destroy() });
}

export function failing(error: Error): Readable & { cancel(): Promise<void> } {
  return streamingRead(
    new Readable({
      objectMode: true,
      read() {
        this.destroy(error);
      },
    }),
  );
}

/** The items as they are, or one every `delayMs` (a long stream that keeps flowing). */
export function spaced<T>(items: T[], delayMs: number): Iterable<T> | AsyncIterable<T> {
  if (delayMs === 0) return items;
  return (async function* slowly() {
    for (const item of items) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      yield item;
    }
  })();
}
