import { Worker } from 'node:worker_threads';
import type { SerializedEvent } from '../append.validation';
import { EventStoreUnavailableError, type ExpectedRevision, type GlobalPosition } from '../event-store.port';
import { WorkerThreadChannel } from '../worker-thread.channel';
import { workerThreadScript } from '../worker-thread.script';
import type { AppendOutcome } from './sqlite-append.transaction';
import { fromWriterError, type CommitReport, type WriterError, type WriterOptions, type WriterRequest } from './sqlite-writer.protocol';

/** A request as sent: the channel gives it its id. */
type Outgoing = WriterRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** Called after each commit of the writer thread: requests that shared it, and its duration (ms). */
export type CommitListener = (report: { readonly requests: number; readonly ms: number }) => void;

/**
 * The main thread's side of the writer thread (sqlite-writer.worker): each call is a message, its
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
    const { script, entry } = workerThreadScript(__dirname, 'sqlite-writer.worker');
    return new SqliteWriter(new Worker(script, { workerData: { ...options, entry } }));
  }

  onCommit(listener: CommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  append(streamId: string, events: readonly SerializedEvent[], expected: ExpectedRevision): Promise<AppendOutcome> {
    return this.request({ op: 'append', streamId, events, expected }) as Promise<AppendOutcome>;
  }

  async saveCheckpoint(name: string, position: GlobalPosition): Promise<void> {
    await this.request({ op: 'checkpoint', name, commit: position.commit, prepare: position.prepare, at: Date.now() });
  }

  /** Waits for every request sent so far, then ends the thread. Idempotent. */
  close(): Promise<void> {
    return this.channel.close();
  }

  private request(message: Outgoing): Promise<AppendOutcome | null> {
    return this.channel.request<AppendOutcome | null>(message);
  }
}
