import { Worker } from 'node:worker_threads';
import { EventStoreUnavailableError, type ExpectedRevision, type GlobalPosition } from '../event-store.port';
import { workerThreadScript } from '../worker-thread.script';
import type { AppendOutcome } from './sqlite-append.transaction';
import type { SerializedEvent } from './sqlite-event.queries';
import { fromWriterError, type CommitReport, type WriterOptions, type WriterReply, type WriterRequest } from './sqlite-writer.protocol';

type Pending = { readonly resolve: (outcome: AppendOutcome | null) => void; readonly reject: (error: Error) => void };

/** Called after each commit of the writer thread: requests that shared it, and its duration (ms). */
export type CommitListener = (report: { readonly requests: number; readonly ms: number }) => void;

/**
 * The main thread's side of the writer thread (sqlite-writer.worker): each call is a message, its
 * promise settles when the batch it joined is durable. If the thread dies, every pending call and
 * every later one fails with EventStoreUnavailableError (a 503, never a 202).
 */
export class SqliteWriter {
  private readonly pending = new Map<number, Pending>();
  private readonly commitListeners = new Set<CommitListener>();
  private nextId = 1;
  private failure: EventStoreUnavailableError | undefined;
  private closing: Promise<void> | undefined;
  private closed: (() => void) | undefined;

  private constructor(private readonly worker: Worker) {
    // Like a socket: the thread keeps the process alive only while a request waits for it.
    worker.unref();
    worker.on('message', (reply: WriterReply | CommitReport | 'closed') => {
      if (reply === 'closed') {
        this.closed?.();
        return;
      }
      if ('kind' in reply) {
        for (const listener of this.commitListeners) listener(reply);
        return;
      }
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) waiting.resolve(reply.outcome);
      else waiting.reject(fromWriterError(reply.error));
    });
    worker.on('error', (error) => this.fail(new EventStoreUnavailableError(`the event store's writer thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.fail(new EventStoreUnavailableError(`the event store's writer thread exited (${code})`)));
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
    return this.request((id) => ({ id, op: 'append', streamId, events, expected })) as Promise<AppendOutcome>;
  }

  async saveCheckpoint(name: string, position: GlobalPosition): Promise<void> {
    await this.request((id) => ({ id, op: 'checkpoint', name, commit: position.commit, prepare: position.prepare, at: Date.now() }));
  }

  /** Waits for every request sent so far, then ends the thread. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.failure) {
        const closed = new Promise<void>((resolve) => (this.closed = resolve));
        // Waiting for the thread to finish is a pending request too: keep the process alive for it.
        this.worker.ref();
        this.worker.postMessage('close');
        await Promise.race([closed, new Promise((resolve) => this.worker.once('exit', resolve))]);
      }
      this.fail(new EventStoreUnavailableError('event store is closed (append)'));
      await this.worker.terminate();
    })();
    return this.closing;
  }

  private request(build: (id: number) => WriterRequest): Promise<AppendOutcome | null> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new EventStoreUnavailableError('event store is closed (append)'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage(build(id));
    });
  }

  private fail(error: EventStoreUnavailableError): void {
    this.failure ??= error;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(this.failure);
    }
    this.worker.unref();
  }
}
