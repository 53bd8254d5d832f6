import { comparePositions, type EventStore, type GlobalPosition, type RecordedEvent, type Subscription } from '@wts/event-store';
import { Signal, retryWithBackoff } from '@wts/runtime';
import type { ConfigurationState } from './configuration.state';

/** Brings the folded configuration up to date for the streams a decision is about to read. */
export interface ConfigurationFreshness {
  /**
   * Resolves once every event committed to these streams before the call (by any replica) is
   * folded: one look at the streams' heads, and a read of just what is new when one moved.
   */
  ensureFresh(streamIds: readonly string[]): Promise<void>;
  /** Folds whatever the stream holds beyond what is folded (after this process appended to it). */
  catchUpStream(streamId: string): Promise<void>;
}

/**
 * Keeps ConfigurationState current: at start, a subscription filtered to the configuration
 * categories (accounts, routines, webhooks) reads those streams alone — never a delivery or a run
 * — and keeps following them; before a decision, ensureFresh() checks the heads of the streams it
 * reads, so a change made through another replica a moment ago is never missed. Start time,
 * memory and the cost of a decision depend on the amount of configuration, not on traffic.
 */
export class ConfigurationFeeder implements ConfigurationFreshness {
  private subscription: Subscription | undefined;
  private stopped = false;
  /** Notified at stop: a resubscription waiting out its delay gives up at once. */
  private readonly stopping = new Signal();
  private position: GlobalPosition | undefined;
  private caughtUp = false;
  private readonly progressWaiters: (() => void)[] = [];
  private readonly reading = new Map<string, Promise<void>>();
  /** Checks asked for since the last look at the heads: they share the next one. */
  private pendingChecks: {
    readonly streamIds: readonly string[];
    readonly resolve: () => void;
    readonly reject: (error: unknown) => void;
  }[] = [];

  constructor(
    private readonly store: EventStore,
    private readonly state: ConfigurationState,
    private readonly onError: (error: unknown) => void,
    private readonly retryDelayMs = 500,
  ) {}

  /** Resolves when everything committed before the call is folded. */
  async start(): Promise<void> {
    const head = await this.store.headPosition();
    this.follow();
    if (head === undefined) return;
    await new Promise<void>((resolve) => {
      const check = (): boolean => this.caughtUp || (this.position !== undefined && comparePositions(this.position, head) >= 0);
      if (check()) return resolve();
      const waiter = (): void => {
        if (!check()) return;
        this.progressWaiters.splice(this.progressWaiters.indexOf(waiter), 1);
        resolve();
      };
      this.progressWaiters.push(waiter);
    });
  }

  /**
   * Requests arriving in the same turn of the event loop share one look at the heads of all the
   * streams they read: it starts after each of them arrived, so it sees every change committed
   * before any of them.
   */
  ensureFresh(streamIds: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.pendingChecks.length === 0) setImmediate(() => void this.checkHeads());
      this.pendingChecks.push({ streamIds, resolve, reject });
    });
  }

  private async checkHeads(): Promise<void> {
    const checks = this.pendingChecks;
    this.pendingChecks = [];
    try {
      const streamIds = [...new Set(checks.flatMap((check) => check.streamIds))];
      const heads = await this.store.streamHeads(streamIds);
      // Every stream asked for goes through the same fold, an absent one too (it finds nothing to
      // read): a decision on an unknown id does what one on a known id does (docs/timing.md).
      await Promise.all(streamIds.map((streamId) => this.foldUpTo(streamId, heads.get(streamId) ?? -1n)));
      for (const check of checks) check.resolve();
    } catch (error) {
      for (const check of checks) check.reject(error);
    }
  }

  async catchUpStream(streamId: string): Promise<void> {
    await this.readNew(streamId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.notify();
    await this.subscription?.stop();
  }

  private async foldUpTo(streamId: string, revision: bigint): Promise<void> {
    // A read already under way may have started before `revision` was committed: look again after it.
    while (this.state.revisionOf(streamId) < revision) await this.readNew(streamId);
  }

  /** One read at a time per stream; concurrent callers share it. */
  private readNew(streamId: string): Promise<void> {
    let reading = this.reading.get(streamId);
    if (!reading) {
      reading = this.store
        .readStream(streamId, { fromRevision: this.state.revisionOf(streamId) + 1n })
        .then((events) => {
          for (const event of events) this.state.apply(event);
        })
        .finally(() => this.reading.delete(streamId));
      this.reading.set(streamId, reading);
    }
    return reading;
  }

  private follow(): void {
    if (this.stopped) return;
    const subscription = this.store.subscribeToAll(
      {
        after: this.position,
        filter: { streamPrefixes: this.state.prefixes },
        onProgress: (position) => this.advance(position),
        onCaughtUp: () => {
          this.caughtUp = true;
          this.notify();
        },
      },
      (event) => this.handle(event),
    );
    this.subscription = subscription;
    subscription.done.then(
      () => undefined,
      (error: unknown) => {
        this.onError(error);
        if (this.stopped) return;
        // Followed again after a fixed delay (retryDelayMs each time), unless stopped meanwhile.
        void retryWithBackoff(async () => this.follow(), {
          initialDelayMs: this.retryDelayMs,
          maxDelayMs: this.retryDelayMs,
          waitFirst: true,
          interrupt: this.stopping,
          proceed: () => !this.stopped,
        });
      },
    );
  }

  private async handle(event: RecordedEvent): Promise<void> {
    // A gap means this stream was read ahead by ensureFresh and then moved again: read the rest.
    if (this.state.apply(event) === 'gap') await this.readNew(event.streamId);
    this.advance(event.position);
  }

  private advance(position: GlobalPosition): void {
    if (this.position === undefined || comparePositions(position, this.position) > 0) this.position = position;
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.progressWaiters]) waiter();
  }
}
