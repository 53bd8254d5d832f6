import type { EventStoreDBClient, StreamingRead } from '@eventstore/db-client';
import { EventStoreUnavailableError } from '../event-store.port';
import { toStoreError } from './eventstoredb-error.mapping';

export interface EventStoreDbConnectionOptions {
  /**
   * Deadline of one call. Passed to the client as `deadline` for unary calls (appends, metadata);
   * the client gives streaming reads an infinite gRPC deadline, so the same limit is also enforced
   * here (with a little grace) around every call.
   */
  readonly operationTimeoutMs: number;
}

/** Extra time before our own guard fires, so the client's gRPC deadline normally wins. */
const GUARD_GRACE_MS = 1000;

/**
 * One EventStoreDBClient, and the one place where client failures become
 * EventStoreUnavailableError (the SqliteConnection of this adapter).
 */
export class EventStoreDbConnection {
  private closed = false;

  constructor(
    private readonly client: EventStoreDBClient,
    readonly options: EventStoreDbConnectionOptions,
  ) {}

  get isOpen(): boolean {
    return !this.closed;
  }

  assertOpen(operation: string): void {
    if (this.closed) throw new EventStoreUnavailableError(`event store is closed (${operation})`);
  }

  /** The client for long-lived calls (subscriptions) that manage their own errors. */
  use<T>(operation: string, fn: (client: EventStoreDBClient) => T): T {
    this.assertOpen(operation);
    return fn(this.client);
  }

  /**
   * A unary call (append, stream metadata). `fn` receives the deadline to pass on; it turns the
   * errors that are values (wrong expected version) into results itself.
   */
  async call<T>(operation: string, fn: (client: EventStoreDBClient, deadline: number) => Promise<T>): Promise<T> {
    this.assertOpen(operation);
    try {
      return await this.guard(operation, fn(this.client, this.options.operationTimeoutMs), () => undefined);
    } catch (error) {
      throw toStoreError(operation, error);
    }
  }

  /**
   * A streaming read: opens it, lets `consume` iterate it, and cancels the gRPC call when
   * `consume` stopped early, failed or took too long.
   */
  async read<E, R>(
    operation: string,
    open: (client: EventStoreDBClient) => StreamingRead<E>,
    consume: (events: AsyncIterable<E>) => Promise<R>,
  ): Promise<R> {
    this.assertOpen(operation);
    let stream: StreamingRead<E> | undefined;
    let finished = false;
    try {
      stream = open(this.client);
      const result = await this.guard(operation, consume(stream), () => stream?.destroy());
      finished = stream.readableEnded;
      return result;
    } catch (error) {
      throw toStoreError(operation, error);
    } finally {
      if (stream && !finished) stream.cancel().catch(() => undefined);
    }
  }

  /** Marks the connection closed (new calls fail with EventStoreUnavailableError) and disposes the client. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.dispose();
  }

  private guard<T>(operation: string, work: Promise<T>, onTimeout: () => void): Promise<T> {
    const limitMs = this.options.operationTimeoutMs + GUARD_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout();
        reject(new EventStoreUnavailableError(`EventStoreDB ${operation} did not answer within ${limitMs} ms`));
      }, limitMs);
    });
    // The loser of the race must not become an unhandled rejection.
    work.catch(() => undefined);
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}
