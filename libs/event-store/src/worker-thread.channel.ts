import type { Worker } from 'node:worker_threads';

/** A worker's answer to one request (`error` is data, rebuilt by `refused`). */
type Reply =
  | { readonly id: number; readonly ok: true; readonly outcome?: unknown }
  | { readonly id: number; readonly ok: false; readonly error: unknown };

export interface WorkerThreadChannelOptions {
  /** Names the thread in failures: "the event store's writer thread". */
  readonly thread: string;
  /** The error pending and later requests fail with once the thread failed, exited or was closed. */
  readonly unavailable: (message: string, cause?: Error) => Error;
  /** What a request fails with, from its reply's `error`. */
  readonly refused: (error: unknown) => Error;
  /** Said of requests once close() was called. */
  readonly closedMessage: string;
  /** Messages that are neither replies nor the end of the thread (e.g. commit reports). */
  readonly onNotice?: (message: unknown) => void;
  /**
   * Requests made in the same turn of the event loop go as one message, an array (the thread
   * unpacks it): one hand-off across the threads for all of them instead of one each. Off: one
   * message per request. Either way the thread may answer with an array of replies.
   */
  readonly batched?: boolean;
  /**
   * With `batched`: a turn's requests go as soon as this many have gathered, the rest at the end
   * of the turn. A producer that makes hundreds in one turn (the dispatcher catching up) then has
   * the thread start on the first while it makes the others, instead of handing all of them over
   * at once and waiting while the thread works. Default: no limit.
   */
  readonly sendEvery?: number;
}

/**
 * Request and reply with a worker thread: each request is a message with an id, its promise
 * settles with the reply of that id. Like a socket, the thread keeps the process alive only while
 * a request waits for it. If the thread fails or exits, every pending request and every later one
 * fails as unavailable. close() lets the thread finish what it was sent (it answers 'closed'),
 * then ends it; idempotent.
 */
export class WorkerThreadChannel {
  private readonly pending = new Map<number, { readonly resolve: (outcome: unknown) => void; readonly reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;
  private closed: (() => void) | undefined;
  /** Batched requests of this turn, sent together by the next `flush`. */
  private outgoing: object[] = [];

  constructor(
    private readonly worker: Worker,
    private readonly options: WorkerThreadChannelOptions,
  ) {
    worker.unref();
    worker.on('message', (message: unknown) => {
      if (message === 'closed') this.closed?.();
      else if (isReply(message)) this.settle(message);
      else if (Array.isArray(message) && message.every(isReply)) for (const reply of message) this.settle(reply);
      else options.onNotice?.(message);
    });
    worker.on('error', (error) => this.fail(options.unavailable(`${options.thread} failed: ${error.message}`, error)));
    worker.on('exit', (code) => this.fail(options.unavailable(`${options.thread} exited (${code})`)));
  }

  /** Sends `message` with a fresh id; resolves with the reply's outcome. */
  request<T>(message: object): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(this.options.unavailable(this.options.closedMessage));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: (outcome) => resolve(outcome as T), reject });
      if (!this.options.batched) return this.worker.postMessage({ ...message, id });
      if (this.outgoing.length === 0) setImmediate(this.flush);
      this.outgoing.push({ ...message, id });
      if (this.outgoing.length >= (this.options.sendEvery ?? Infinity)) this.flush();
    });
  }

  private readonly flush = (): void => {
    const batch = this.outgoing;
    if (batch.length === 0) return;
    this.outgoing = [];
    // Failed meanwhile: fail() has rejected these requests already.
    if (!this.failure) this.worker.postMessage(batch);
  };

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.failure) {
        const closed = new Promise<void>((resolve) => (this.closed = resolve));
        // Waiting for the thread to finish is a pending request too: keep the process alive for it.
        this.worker.ref();
        this.flush();
        this.worker.postMessage('close');
        await Promise.race([closed, new Promise((resolve) => this.worker.once('exit', resolve))]);
      }
      this.fail(this.options.unavailable(this.options.closedMessage));
      await this.worker.terminate();
    })();
    return this.closing;
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.ok) waiting.resolve(reply.outcome);
    else waiting.reject(this.options.refused(reply.error));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(this.failure);
    }
    this.worker.unref();
  }
}

function isReply(message: unknown): message is Reply {
  if (typeof message !== 'object' || message === null) return false;
  const { id, ok } = message as { id?: unknown; ok?: unknown };
  return typeof id === 'number' && typeof ok === 'boolean';
}
