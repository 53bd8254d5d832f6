import { workerThreadScript } from '@wts/event-store';
import { Worker } from 'node:worker_threads';
import { ReadModelUnavailableError, type AttemptRow } from '../read-model.port';
import type { ActivityReply, ActivityRequest, ActivityWorkerData } from './sqlite-activity.protocol';

type Pending = { readonly resolve: () => void; readonly reject: (error: Error) => void };
type Outgoing = ActivityRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * The main thread's side of sqlite-activity.worker: each write is a message, its promise settles
 * once the thread committed it. Like a socket, the thread keeps the process alive only while a
 * write waits for it. If it dies, pending and later writes fail as "read model unavailable"
 * (the recorder keeps their records for a later try).
 */
export class SqliteActivityWriter {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: ReadModelUnavailableError | undefined;
  private closing: Promise<void> | undefined;
  private closed: (() => void) | undefined;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (reply: ActivityReply | 'closed') => {
      if (reply === 'closed') {
        this.closed?.();
        return;
      }
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) waiting.resolve();
      else waiting.reject(new ReadModelUnavailableError(`read model write failed on the activity thread: ${reply.message}`));
    });
    worker.on('error', (error) => this.fail(new ReadModelUnavailableError(`the read model's activity thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.fail(new ReadModelUnavailableError(`the read model's activity thread exited (${code})`)));
  }

  static spawn(filePath: string, busyTimeoutMs: number): SqliteActivityWriter {
    const { script, entry } = workerThreadScript(__dirname, 'sqlite-activity.worker');
    const data: ActivityWorkerData & { entry: string } = { filePath, busyTimeoutMs, entry };
    return new SqliteActivityWriter(new Worker(script, { workerData: data }));
  }

  recordAttempts(attempts: readonly AttemptRow[], keep: number): Promise<void> {
    return this.request({ op: 'attempts', attempts, keep });
  }

  recordReplays(counts: ReadonlyMap<string, number>): Promise<void> {
    return this.request({ op: 'replays', counts: [...counts] });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.failure) {
        const closed = new Promise<void>((resolve) => (this.closed = resolve));
        this.worker.ref();
        this.worker.postMessage('close');
        await Promise.race([closed, new Promise((resolve) => this.worker.once('exit', resolve))]);
      }
      this.fail(new ReadModelUnavailableError('read model is closed (activity)'));
      await this.worker.terminate();
    })();
    return this.closing;
  }

  private request(message: Outgoing): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...message, id });
    });
  }

  private fail(error: ReadModelUnavailableError): void {
    this.failure ??= error;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(this.failure);
    }
    this.worker.unref();
  }
}
