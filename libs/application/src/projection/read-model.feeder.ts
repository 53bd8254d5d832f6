import type { EventStore, Subscription } from '@wts/event-store';
import type { ServiceReadModel } from './service.read-model';

/** Brings a read model up to date with everything committed before the call. */
export interface ReadModelFreshness {
  catchUp(): Promise<void>;
}

const PULL_BATCH = 500;

/**
 * Keeps a read model current: catches up from the start of $all, then follows new events.
 * If the subscription dies (store hiccup), it resubscribes from the last folded position.
 * `catchUp()` pulls on demand, so a decision made after another replica's write sees it
 * (a rotated secret is dead at once on every replica); concurrent callers share one pull.
 */
export class ReadModelFeeder implements ReadModelFreshness {
  private subscription: Subscription | undefined;
  private stopped = false;
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly model: ServiceReadModel,
    private readonly onError: (error: unknown) => void,
    private readonly retryDelayMs = 500,
  ) {}

  /** Resolves when the model has caught up with everything in the store at call time. */
  async start(): Promise<void> {
    const head = await this.store.headPosition();
    this.follow();
    await this.model.waitFor(head);
  }

  catchUp(): Promise<void> {
    if (!this.inFlight) {
      this.inFlight = this.pull().finally(() => {
        this.inFlight = undefined;
      });
      return this.inFlight;
    }
    // A pull is running but may have started before this caller's moment: one more after it.
    this.queued ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.catchUp();
      });
    return this.queued;
  }

  private async pull(): Promise<void> {
    for (;;) {
      const after = this.model.position.commit < 0n ? undefined : this.model.position;
      const batch = await this.store.readAll({ after, limit: PULL_BATCH });
      for (const event of batch) this.model.apply(event);
      if (batch.length < PULL_BATCH) return;
    }
  }

  private follow(): void {
    if (this.stopped) return;
    const after = this.model.position.commit < 0n ? undefined : this.model.position;
    const subscription = this.store.subscribeToAll({ after }, (event) => this.model.apply(event));
    this.subscription = subscription;
    subscription.done.then(
      () => undefined,
      (error: unknown) => {
        this.onError(error);
        if (!this.stopped) setTimeout(() => this.follow(), this.retryDelayMs).unref();
      },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
  }
}
