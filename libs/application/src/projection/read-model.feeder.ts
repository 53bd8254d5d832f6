import type { EventStore, Subscription } from '@wts/event-store';
import type { ServiceReadModel } from './service.read-model';

/**
 * Keeps a read model current: catches up from the start of $all, then follows new events.
 * If the subscription dies (store hiccup), it resubscribes from the last folded position.
 */
export class ReadModelFeeder {
  private subscription: Subscription | undefined;
  private stopped = false;

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
