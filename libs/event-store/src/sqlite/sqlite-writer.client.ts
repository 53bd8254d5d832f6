import { Worker } from 'node:worker_threads';
import type { SerializedEvent } from '../append.validation';
import { EventStoreUnavailableError, type ExpectedRevision, type GlobalPosition } from '../event-store.port';
import type { PayloadAttachment, PayloadRemoval } from '../payload-store.port';
import { WorkerThreadChannel } from '../worker-thread.channel';
import { workerThreadScript } from '../worker-thread.script';
import type { AppendOutcome } from './sqlite-append.transaction';
import {
  fromWriterError,
  type CommitReport,
  type TruncateOutcome,
  type WriterError,
  type WriterOptions,
  type WriterOutcome,
  type WriterRequest,
} from './sqlite-writer.protocol';

/**
 * Requests handed to the writer thread at once at most: the dispatcher catching up makes 256 appends
 * in one turn, and the thread commits the first while it makes the rest (docs/bench/consolidation,
 * fourth pass). The ingress rarely makes this many in one turn.
 */
const SEND_EVERY = 32;

/** A request as sent: the channel gives it its id. */
type Outgoing = WriterRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** Called after each commit of the writer thread: requests that shared it, and its duration (ms). */
export type CommitListener = (report: { readonly requests: number; readonly ms: number }) => void;

/**
 * The main thread's side of the writer thread (sqlite-writer.thread): each call is a message, its
 * promise settles when the batch it joined is durable. If the thread dies, every pending call and
 * every later one fails with EventStoreUnavailableError (a 503, never a 202).
 */
export class SqliteWriter {
  private readonly commitListeners = new Set<CommitListener>();
  private readonly channel: WorkerThreadChannel;

  private constructor(worker: Worker) {
    this.channel = new WorkerThreadChannel(worker, {
      thread: "the event store's writer thread",
      unavailable: (message, cause) => new EventStoreUnavailableError(message, cause ? { cause } : undefined),
      refused: (error) => fromWriterError(error as WriterError),
      closedMessage: 'event store is closed (append)',
      batched: true,
      sendEvery: SEND_EVERY,
      onNotice: (notice) => {
        for (const listener of this.commitListeners) listener(notice as CommitReport);
      },
    });
  }

  /**
   * Starts the thread; requests sent before it is up wait for it. (The caller has opened the file
   * and brought its schema up to date already: the thread's own open does not fail for those.)
   */
  static spawn(options: WriterOptions): SqliteWriter {
    const { script, entry } = workerThreadScript(__dirname, 'sqlite-writer.thread');
    return new SqliteWriter(new Worker(script, { workerData: { ...options, entry } }));
  }

  onCommit(listener: CommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  append(
    streamId: string,
    events: readonly SerializedEvent[],
    expected: ExpectedRevision,
    payload?: PayloadAttachment,
  ): Promise<AppendOutcome> {
    // Only the port's fields cross the thread boundary (a caller's richer object may not be cloneable).
    const plain = payload && {
      key: payload.key,
      webhookId: payload.webhookId,
      format: payload.format,
      text: payload.text,
      receivedAt: payload.receivedAt,
      expiresAt: payload.expiresAt,
    };
    return this.request<AppendOutcome>({ op: 'append', streamId, events, expected, payload: plain });
  }

  async saveCheckpoint(name: string, position: GlobalPosition): Promise<void> {
    await this.request<null>({ op: 'checkpoint', name, commit: position.commit, prepare: position.prepare, at: Date.now() });
  }

  /** Removes the kept payloads of these keys in one transaction; resolves with how many there were. */
  removePayloads(keys: readonly string[], removal: PayloadRemoval): Promise<number> {
    return this.request<number>({ op: 'remove_payloads', keys, removal });
  }

  /** Drops up to `max` bucket tables past by `now` that keep nothing; resolves with how many. */
  settlePayloadBuckets(now: number, maxDrops: number, maxRows: number): Promise<number> {
    return this.request<number>({ op: 'settle_payload_buckets', now, maxDrops, maxRows });
  }

  /** One wal_checkpoint(TRUNCATE) attempt, between the writer's batches. */
  checkpointTruncate(): Promise<TruncateOutcome> {
    return this.request<TruncateOutcome>({ op: 'checkpoint_truncate' });
  }

  /** Waits for every request sent so far, then ends the thread. Idempotent. */
  close(): Promise<void> {
    return this.channel.close();
  }

  /** T: the outcome the writer answers this op with (sqlite-writer.thread's run and truncate). */
  private request<T extends WriterOutcome>(message: Outgoing): Promise<T> {
    return this.channel.request<T>(message);
  }
}
