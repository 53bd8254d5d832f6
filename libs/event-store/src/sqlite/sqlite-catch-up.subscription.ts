import type { EventHandler, RecordedEvent, SubscribeOptions, Subscription } from '../event-store.port';

/**
 * What the subscription needs from the store: pulls by sequence number, and a wake-up on appends
 * through this instance (EventStoreDB's subscription is fed by the server instead, see
 * EventStoreDbCatchUpSource). Calls may throw EventStoreUnavailableError.
 */
export interface SqliteCatchUpSource {
  /** The highest global sequence number committed so far. */
  headSeq(): bigint;
  /** Events with afterSeq < seq <= uptoSeq, in global order, at most `limit`, filtered. */
  readRange(afterSeq: bigint, uptoSeq: bigint, limit: number): readonly RecordedEvent[];
  /**
   * Calls `listener` once on the next append through this store instance to a stream this
   * subscription would deliver; returns an unsubscribe.
   */
  onNextAppend(listener: () => void): () => void;
}

export interface SqliteCatchUpOptions extends Pick<SubscribeOptions, 'onProgress' | 'onCaughtUp'> {
  /** Deliver events with a sequence number strictly greater than this. */
  readonly afterSeq: bigint;
  readonly batchSize: number;
  /** Wake-up interval to notice appends made by other processes (or other store instances). */
  readonly pollIntervalMs: number;
}

/**
 * Catch-up subscription over the events table: reads batches up to the current head, awaits the
 * handler per event, then sleeps until an in-process append or the next poll.
 */
export class SqliteCatchUpSubscription implements Subscription {
  readonly done: Promise<void>;
  private stopping = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly source: SqliteCatchUpSource,
    private readonly options: SqliteCatchUpOptions,
    private readonly handler: EventHandler,
  ) {
    this.done = this.run();
  }

  stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    return this.done.then(
      () => undefined,
      () => undefined,
    );
  }

  private async run(): Promise<void> {
    // Never call the handler synchronously from subscribeToAll().
    await yieldToEventLoop();
    let cursor = this.options.afterSeq;
    let idle = false;
    while (!this.stopping) {
      const head = this.source.headSeq();
      if (head <= cursor) {
        if (!idle) this.options.onCaughtUp?.();
        idle = true;
        await this.waitForAppend();
        continue;
      }
      idle = false;
      const batch = this.source.readRange(cursor, head, this.options.batchSize);
      for (const event of batch) {
        if (this.stopping) return;
        await this.handler(event);
        cursor = event.position.commit;
      }
      // A short batch means everything up to head was scanned, even events the filter skipped.
      if (batch.length < this.options.batchSize) cursor = head;
      if (this.options.onProgress && !this.stopping) this.options.onProgress({ commit: cursor, prepare: cursor });
      // Let timers and I/O run between batches while catching up on a long history.
      await yieldToEventLoop();
    }
  }

  private waitForAppend(): Promise<void> {
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        unsubscribe();
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, this.options.pollIntervalMs);
      const unsubscribe = this.source.onNextAppend(finish);
      this.wake = finish;
    });
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
