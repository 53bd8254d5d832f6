import type { EventStore, GlobalPosition, RecordedEvent, Subscription } from '@wts/event-store';
import { Signal, retryWithBackoff } from '@wts/runtime';

/** An event handed over and not yet passed by its worker's checkpoint. */
export interface InFlight {
  readonly position: GlobalPosition;
  done: boolean;
  task: Promise<void>;
}

export interface SubscriptionFollowOptions {
  readonly store: EventStore;
  /** The stream category followed in $all. */
  readonly streamPrefix: string;
  readonly retryDelayMs: number;
  /** Where to go on from: read at start, and after a failure once every event in flight has settled. */
  readonly after: () => GlobalPosition | undefined;
  readonly handle: (event: RecordedEvent) => Promise<void>;
  /** Told when the subscription fails; it is then followed again after `retryDelayMs`, unless stopping. */
  readonly onFailure: (error: unknown) => void;
}

/**
 * The following part of a checkpointed worker: a catch-up subscription on one category of $all,
 * the events it handed over and that are still in flight, a resubscription after a failure (from
 * where the worker's checkpoint stands, once those have settled), and the stop.
 */
export class SubscriptionFollow {
  /** Events handed over and not yet passed by the checkpoint, in order (the worker adds and removes them). */
  readonly inFlight: InFlight[] = [];
  /** Notified at stop: a retry waiting between attempts gives up at once. */
  readonly stopping = new Signal();
  private subscription: Subscription | undefined;
  private isStopped = false;

  constructor(private readonly options: SubscriptionFollowOptions) {}

  get stopped(): boolean {
    return this.isStopped;
  }

  /** Called at start, and again after a failure once every event in flight has settled. */
  follow(): void {
    const subscription = this.options.store.subscribeToAll(
      { after: this.options.after(), filter: { streamPrefixes: [this.options.streamPrefix] } },
      (event) => this.options.handle(event),
    );
    this.subscription = subscription;
    subscription.done.then(
      () => undefined,
      (error: unknown) => {
        this.options.onFailure(error);
        if (this.isStopped) return;
        // A fixed delay (retryDelayMs each time), cut short by stop; not after a stop.
        void retryWithBackoff(() => this.settled().then(() => this.follow()), {
          initialDelayMs: this.options.retryDelayMs,
          maxDelayMs: this.options.retryDelayMs,
          waitFirst: true,
          interrupt: this.stopping,
          proceed: () => !this.isStopped,
        });
      },
    );
  }

  /** No event is handed over any more, and every one in flight has settled. */
  async stop(): Promise<void> {
    this.isStopped = true;
    this.stopping.notify();
    await this.subscription?.stop().catch(() => undefined);
    await this.settled();
  }

  private settled(): Promise<void[]> {
    return Promise.all(this.inFlight.map((entry) => entry.task));
  }
}
