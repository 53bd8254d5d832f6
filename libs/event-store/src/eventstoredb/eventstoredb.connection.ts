import { EventStoreUnavailableError } from '../event-store.port';
import type { ClientRead, EventStoreDbClientApi, EventStoreDbClientHandle } from './eventstoredb-client.port';
import { needsNewChannel, toStoreError } from './eventstoredb-error.mapping';

export interface EventStoreDbConnectionOptions {
  /**
   * Deadline of one unary call (passed to the client as `deadline`), and the longest a streaming
   * read may wait for its next event (an idle timeout: a long stream that keeps flowing is never
   * cut off; the client gives streaming reads no gRPC deadline at all).
   */
  readonly operationTimeoutMs: number;
}

/** Extra time before our own guard fires, so the client's gRPC deadline normally wins. */
const GUARD_GRACE_MS = 1000;

/**
 * The process's EventStoreDB client as one store uses it, and the one place where client failures
 * become the port's errors (the SqliteConnection of this adapter). Also holds what readiness must
 * know beyond one round trip: a subscription that gave up.
 */
export class EventStoreDbConnection {
  private closed = false;
  private subscriptionFailure: Error | undefined;

  constructor(
    private readonly handle: EventStoreDbClientHandle,
    readonly options: EventStoreDbConnectionOptions,
    private readonly release: () => Promise<void>,
  ) {}

  get isOpen(): boolean {
    return !this.closed;
  }

  assertOpen(operation: string): void {
    if (this.closed) throw new EventStoreUnavailableError(`event store is closed (${operation})`);
  }

  /** The client for long-lived calls (subscriptions) that manage their own errors. */
  use<T>(operation: string, fn: (client: EventStoreDbClientApi) => T): T {
    this.assertOpen(operation);
    return fn(this.handle.client);
  }

  /**
   * A unary call (append, stream metadata). `fn` receives the deadline to pass on; it turns the
   * errors that are values (wrong expected version) into results itself.
   */
  async call<T>(operation: string, fn: (client: EventStoreDbClientApi, deadline: number) => Promise<T>): Promise<T> {
    this.assertOpen(operation);
    try {
      const limitMs = this.options.operationTimeoutMs + GUARD_GRACE_MS;
      return await this.guard(operation, limitMs, fn(this.handle.client, this.options.operationTimeoutMs), () => undefined);
    } catch (error) {
      throw this.failure(operation, error);
    }
  }

  /**
   * A streaming read: opens it, lets `consume` iterate it, and cancels the gRPC call when
   * `consume` stopped early or failed, or when no event came for operationTimeoutMs.
   */
  async read<E, R>(
    operation: string,
    open: (client: EventStoreDbClientApi) => ClientRead<E>,
    consume: (events: AsyncIterable<E>) => Promise<R>,
  ): Promise<R> {
    this.assertOpen(operation);
    let stream: ClientRead<E> | undefined;
    let finished = false;
    const idle = new IdleTimer(this.options.operationTimeoutMs + GUARD_GRACE_MS);
    try {
      stream = open(this.handle.client);
      const result = await this.guardIdle(operation, idle, consume(touching(stream, idle)), () => stream?.destroy());
      finished = stream.readableEnded;
      return result;
    } catch (error) {
      throw this.failure(operation, error);
    } finally {
      idle.clear();
      if (stream && !finished) stream.cancel().catch(() => undefined);
    }
  }

  /**
   * The port's error for a client failure; after INTERNAL or DATA_LOSS also drops the channel,
   * which 6.2.1 keeps using (the successor client reconnects on both).
   */
  failure(operation: string, error: unknown): unknown {
    if (!this.closed && needsNewChannel(error)) void this.handle.channel.reconnect().catch(() => undefined);
    return toStoreError(operation, error);
  }

  /** A subscription exhausted its retry budget: readiness fails until one works again. */
  reportSubscriptionGaveUp(error: Error): void {
    this.subscriptionFailure = error;
  }

  /** A subscription received from the server again. */
  reportSubscriptionHealthy(): void {
    this.subscriptionFailure = undefined;
  }

  /** Throws what readiness must show besides the round trip. */
  assertSubscriptionsHealthy(): void {
    const failure = this.subscriptionFailure;
    if (failure) throw new EventStoreUnavailableError(`an EventStoreDB subscription gave up: ${failure.message}`, { cause: failure });
  }

  /** Marks the connection closed (new calls fail with EventStoreUnavailableError) and releases the shared client. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private guard<T>(operation: string, limitMs: number, work: Promise<T>, onTimeout: () => void): Promise<T> {
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

  private guardIdle<T>(operation: string, idle: IdleTimer, work: Promise<T>, onTimeout: () => void): Promise<T> {
    const timeout = new Promise<never>((_, reject) => {
      idle.start(() => {
        onTimeout();
        reject(new EventStoreUnavailableError(`EventStoreDB ${operation} sent nothing for ${idle.limitMs} ms`));
      });
    });
    work.catch(() => undefined);
    return Promise.race([work, timeout]);
  }
}

/** A timer restarted by every event: fires only after limitMs without one. */
class IdleTimer {
  private timer: NodeJS.Timeout | undefined;
  private onIdle: (() => void) | undefined;

  constructor(readonly limitMs: number) {}

  start(onIdle: () => void): void {
    this.onIdle = onIdle;
    this.touch();
  }

  touch(): void {
    if (!this.onIdle) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onIdle, this.limitMs);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.onIdle = undefined;
  }
}

async function* touching<E>(events: AsyncIterable<E>, idle: IdleTimer): AsyncIterable<E> {
  for await (const event of events) {
    idle.touch();
    yield event;
  }
}
