/**
 * The event-store port. Adapters: the embedded SQLite store and EventStoreDB.
 * Conflicts are values, not exceptions: "stream already exists" is how idempotency is expressed.
 */

import type { AppendOptions, PayloadStore } from './payload-store.port';

/** A position in the global ($all) order. Embedded: commit = prepare = sequence number. */
export interface GlobalPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface EventToAppend {
  /** A UUID. Appending the same ids again at the same place is an idempotent retry. */
  readonly id: string;
  readonly type: string;
  readonly data: object;
  readonly metadata: object;
}

export interface RecordedEvent {
  readonly id: string;
  readonly streamId: string;
  /** 0-based revision within its stream. */
  readonly revision: bigint;
  readonly position: GlobalPosition;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly createdAt: Date;
}

export type AppendResult =
  | { readonly kind: 'appended'; readonly nextRevision: bigint; readonly position: GlobalPosition }
  | {
      readonly kind: 'conflict';
      readonly streamId: string;
      readonly expected: ExpectedRevision;
      /** -1n when the stream does not exist. */
      readonly actualRevision: bigint;
    };

export interface SubscriptionFilter {
  /** Only streams whose names start with one of these. */
  readonly streamPrefixes?: readonly string[];
}

export interface SubscribeOptions {
  /** Deliver events strictly after this position; from the start when absent. */
  readonly after?: GlobalPosition;
  readonly filter?: SubscriptionFilter;
  /**
   * Called with a position up to which every event has been handed to the handler or left out by
   * the filter (a filtered subscription over a long stretch of other streams still moves on).
   */
  readonly onProgress?: (position: GlobalPosition) => void;
  /** Called each time the subscription has reached the end of the store and waits for new events. */
  readonly onCaughtUp?: () => void;
}

export interface ReadAllOptions {
  /** Events strictly after this position; from the start when absent. */
  readonly after?: GlobalPosition;
  /** At most this many (a non-negative integer). */
  readonly limit: number;
  readonly filter?: SubscriptionFilter;
}

export interface ReadStreamOptions {
  /** The first revision to read (inclusive); 0n when absent. */
  readonly fromRevision?: bigint;
  /** At most this many events. */
  readonly maxCount?: number;
}

export type EventHandler = (event: RecordedEvent) => Promise<void> | void;

export interface Subscription {
  /** Resolves when the subscription has stopped (after the handler in flight returned). */
  stop(): Promise<void>;
  /** Rejects if the subscription died (handler threw, store failed); resolves on stop(). */
  readonly done: Promise<void>;
}

export interface EventStore {
  /**
   * The largest event (data and metadata as JSON, in bytes) one append may hold: larger ones are
   * refused with InvalidAppendError before anything is sent. Callers size what they accept by it.
   */
  readonly maxEventBytes: number;
  /** With options.payload: the payload is stored if and only if these events are (see PayloadStore). */
  append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;
  /** The untrusted payloads, kept apart from the events so they can be removed. */
  payloads(): PayloadStore;
  /** Events of a stream in order (all of them by default); an empty array when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<readonly RecordedEvent[]>;
  /**
   * The revision of the last event of each stream (-1n for a stream that does not exist), read
   * from the leader: a cheap check of whether what a process folded is still current.
   */
  streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>>;
  /**
   * The first event (revision 0) of each of these streams that exists, by stream id (absent: no
   * such stream): many streams' first events in one read where the store can (the embedded store:
   * one statement in one snapshot), e.g. the deliveries of a batch of Kafka messages.
   */
  readFirstEvents(streamIds: readonly string[]): Promise<ReadonlyMap<string, RecordedEvent>>;
  /** Events of $all in global order, strictly after `after`, at most `limit` of them. */
  readAll(options: ReadAllOptions): Promise<readonly RecordedEvent[]>;
  /**
   * A catch-up subscription to $all in global order. The handler is awaited: one event at a time,
   * in order. A throwing handler ends the subscription (done rejects).
   */
  subscribeToAll(options: SubscribeOptions, handler: EventHandler): Subscription;
  /** The position of the last event in $all (undefined when the store is empty). */
  headPosition(): Promise<GlobalPosition | undefined>;
  /** Health: resolves when the store answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not be reached or failed: callers answer 503, never 202. */
export class EventStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreUnavailableError';
  }
}

/** Whether a stream at revision `current` (-1n: no stream) satisfies `expected`: every adapter's rule. */
export function satisfiesExpected(expected: ExpectedRevision, current: bigint): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === -1n;
    case 'stream_exists':
      return current >= 0n;
    default:
      return current === expected;
  }
}

export const START_POSITION: GlobalPosition = { commit: -1n, prepare: -1n };

export function comparePositions(a: GlobalPosition, b: GlobalPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function formatPosition(p: GlobalPosition): string {
  return `${p.commit}/${p.prepare}`;
}

export function parsePosition(text: string): GlobalPosition {
  const match = /^(-?\d+)\/(-?\d+)$/.exec(text);
  if (!match) throw new Error(`not a position: ${text}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}

/** Durable checkpoints for subscriptions, relays and projections. */
export interface CheckpointStore {
  load(name: string): Promise<GlobalPosition | undefined>;
  save(name: string, position: GlobalPosition): Promise<void>;
}
