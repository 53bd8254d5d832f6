import type { AllStreamResolvedEvent } from '@eventstore/db-client';
import { backoffDelay } from '@wts/runtime';
import {
  EventStoreUnavailableError,
  comparePositions,
  type EventHandler,
  type GlobalPosition,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port';
import type { ClientSubscription } from './eventstoredb-client.port';
import { positionOf } from './eventstoredb-event.mapping';

/** How a subscription comes back after the server or the connection ended it. */
export interface ResubscribePolicy {
  /** Wait before the first new attempt (ms); doubled after each failed one. */
  readonly initialDelayMs: number;
  /** Longest wait between attempts (ms). */
  readonly maxDelayMs: number;
  /**
   * Consecutive attempts that end before anything arrives from the server, after which the
   * subscription gives up (done rejects, readiness fails). Any event, checkpoint or caught-up
   * notice resets the count.
   */
  readonly maxAttempts: number;
}

export const DEFAULT_RESUBSCRIBE_POLICY: ResubscribePolicy = { initialDelayMs: 100, maxDelayMs: 5000, maxAttempts: 12 };

/**
 * A filter checkpoint, pushed into the subscription's own stream by the checkpointReached callback
 * (see filterCheckpoint) so it is seen in order: after the events the server sent before it. The
 * callback itself runs while earlier events may still wait in the stream's buffer; taking its
 * position at once would skip them on a resubscription (and checkpoint past them).
 */
export interface FilterCheckpoint {
  readonly filterCheckpoint: GlobalPosition;
}

export function filterCheckpoint(position: GlobalPosition): FilterCheckpoint {
  return { filterCheckpoint: position };
}

function isFilterCheckpoint(item: AllStreamResolvedEvent | FilterCheckpoint): item is FilterCheckpoint {
  return 'filterCheckpoint' in item;
}

/**
 * What the subscription needs from the store: a server-fed client subscription from a position,
 * and the store's view of its events and failures (the SQLite subscription pulls instead, see
 * SqliteCatchUpSource).
 */
export interface EventStoreDbCatchUpSource {
  /**
   * Opens a client subscription delivering events strictly after `after` (from the start when
   * undefined), with filter checkpoints in between; undefined when nothing can ever match (an
   * empty prefix list), in which case the subscription idles until stopped.
   */
  open(after: GlobalPosition | undefined): ClientSubscription | undefined;
  /** The event to hand to the handler, or undefined to skip it (system, checkpoint, filtered out). */
  accept(resolved: AllStreamResolvedEvent): RecordedEvent | undefined;
  /**
   * The port's error for a client failure (EventStoreUnavailableError when it may pass, anything
   * else is permanent).
   */
  toError(error: unknown): unknown;
  /** Whether the store was closed (never resubscribe then). */
  isClosed(): boolean;
  /** Readiness: the subscription gave up, or works again. */
  reportGaveUp(error: Error): void;
  reportHealthy(): void;
}

type AttemptEnd =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'handler-failed'; readonly error: unknown }
  | { readonly kind: 'source-ended'; readonly error: unknown; readonly received: boolean };

/**
 * A catch-up subscription over the client's subscribeToAll, consumed as an async iterable so the
 * handler is awaited one event at a time (the client's Readable applies backpressure to gRPC).
 *
 * The server ends live subscriptions that fall behind ("Consumer too slow … resubscription
 * required", ABORTED, up to 23.10) and every reconnect of the client ends all subscriptions on the
 * old channel: both come back from the last position handed to the handler or checkpointed, with
 * backoff. done rejects only when the handler throws, the store is closed, the server refuses the
 * subscription for good, or the retry budget is spent.
 */
export class EventStoreDbCatchUpSubscription implements Subscription {
  readonly done: Promise<void>;
  private stopping = false;
  private source: ClientSubscription | undefined;
  private wake: (() => void) | undefined;
  private cursor: GlobalPosition | undefined;

  constructor(
    private readonly from: EventStoreDbCatchUpSource,
    /** Events at or before this position are never delivered (the server excludes it already). */
    after: GlobalPosition | undefined,
    private readonly handler: EventHandler,
    private readonly progress: Pick<SubscribeOptions, 'onProgress' | 'onCaughtUp'> = {},
    private readonly policy: ResubscribePolicy = DEFAULT_RESUBSCRIBE_POLICY,
  ) {
    this.cursor = after;
    this.done = this.run();
  }

  stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.wake?.();
      // Cancels the gRPC call; destroying the Readable wakes an iterator waiting for the next event.
      // A handler in flight finishes first: the loop checks `stopping` before the next delivery.
      const source = this.source;
      if (source) void unsubscribe(source).then(() => source.destroy());
    }
    return this.done.then(
      () => undefined,
      () => undefined,
    );
  }

  private async run(): Promise<void> {
    // Never call the handler synchronously from subscribeToAll().
    await new Promise((resolve) => setImmediate(resolve));
    let failures = 0;
    for (;;) {
      if (this.stopping) return;
      if (this.from.isClosed()) throw new EventStoreUnavailableError('event store is closed (subscription)');
      const end = await this.attempt();
      if (end.kind === 'stopped' || this.stopping) return;
      if (end.kind === 'handler-failed') throw end.error;
      const error =
        end.error === undefined
          ? new EventStoreUnavailableError('EventStoreDB ended the subscription to $all')
          : this.from.toError(end.error);
      if (this.from.isClosed()) throw new EventStoreUnavailableError('event store is closed (subscription)', { cause: error });
      if (!(error instanceof EventStoreUnavailableError)) throw error;
      failures = end.received ? 1 : failures + 1;
      if (failures >= this.policy.maxAttempts) {
        const gaveUp = new EventStoreUnavailableError(
          `EventStoreDB subscription to $all failed ${failures} times in a row, last: ${error.message}`,
          { cause: error },
        );
        this.from.reportGaveUp(gaveUp);
        throw gaveUp;
      }
      await this.sleep(backoffDelay(this.policy, failures));
    }
  }

  /** One client subscription from the cursor, until it ends. */
  private async attempt(): Promise<AttemptEnd> {
    let received = false;
    const heard = (): void => {
      if (!received) this.from.reportHealthy();
      received = true;
    };
    let source: ClientSubscription | undefined;
    try {
      source = this.from.open(this.cursor);
    } catch (error) {
      return { kind: 'source-ended', error, received };
    }
    if (!source) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      return { kind: 'stopped' };
    }
    this.source = source;
    if (this.stopping) {
      await unsubscribe(source);
      return { kind: 'stopped' };
    }
    // Servers from 23.10 say when the subscription turns live; older ones only send checkpoints.
    source.on('caughtUp', () => {
      heard();
      this.progress.onCaughtUp?.();
    });
    source.on('confirmation', heard);

    try {
      for await (const resolved of source as AsyncIterable<AllStreamResolvedEvent | FilterCheckpoint>) {
        heard();
        if (this.stopping) return { kind: 'stopped' };
        if (isFilterCheckpoint(resolved)) {
          this.advance(resolved.filterCheckpoint);
          this.progress.onProgress?.(resolved.filterCheckpoint);
          continue;
        }
        const position = positionOf(resolved);
        if (position && this.cursor && comparePositions(position, this.cursor) <= 0) continue;
        if (position) this.cursor = position;
        const event = this.from.accept(resolved);
        if (!event) continue;
        try {
          await this.handler(event);
        } catch (error) {
          return { kind: 'handler-failed', error };
        }
        if (this.stopping) return { kind: 'stopped' };
        this.progress.onProgress?.(event.position);
      }
      return { kind: 'source-ended', error: undefined, received };
    } catch (error) {
      return { kind: 'source-ended', error, received };
    } finally {
      this.source = undefined;
      await unsubscribe(source);
    }
  }

  private advance(position: GlobalPosition): void {
    if (!this.cursor || comparePositions(position, this.cursor) > 0) this.cursor = position;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => (this.wake = undefined));
  }
}

async function unsubscribe(source: ClientSubscription): Promise<void> {
  try {
    await source.unsubscribe();
  } catch {
    // The call failed already (that failure is what `done` reports) or is gone.
  }
}
