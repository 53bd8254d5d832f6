import { StreamCategories, type DeliveryAccepted } from '@wts/contracts';
import type { CheckpointStore, EventStore, GlobalPosition, RecordedEvent } from '@wts/event-store';
import type { DispatchOutcome } from './dispatch-delivery.usecase';
import {
  dispatchRetry,
  dispatchUntilDone,
  type DispatchRetry,
  type DispatchWorkerDependencies,
  type DispatchWorkerLogger,
} from './dispatch-until-done';
import { SubscriptionFollow, type InFlight } from './subscription-follow.worker';

export type { DispatchWorkerLogger } from './dispatch-until-done';

export const STORE_DISPATCH_CHECKPOINT = 'run-dispatcher/store-subscription';

export interface StoreDispatchOptions {
  /** How often the checkpoint is saved at most (handling is idempotent: a replay after a crash is harmless). */
  readonly checkpointEveryMs: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  /** Deliveries dispatched at once: their runs share the store's commits. */
  readonly concurrency: number;
}

export const DEFAULT_STORE_DISPATCH_OPTIONS: StoreDispatchOptions = {
  checkpointEveryMs: 200,
  retryDelayMs: 250,
  maxRetryDelayMs: 5000,
  concurrency: 256,
};

export type StoreDispatchDependencies = DispatchWorkerDependencies<StoreDispatchOptions>;

/**
 * The embedded path from accepted deliveries to runs: a catch-up subscription on the store from
 * a durable checkpoint, dispatching up to `concurrency` deliveries at once (their appends share
 * commits). A failure (store down) is retried in place with backoff, and the checkpoint only ever
 * moves past a delivery once it and every delivery before it has its run (or was parked).
 */
export class StoreDispatchWorker {
  /** Follows the delivery streams; its deliveries in flight: dispatching, or dispatched behind one that is. */
  private readonly follower: SubscriptionFollow;
  private readonly options: StoreDispatchOptions;
  /** Every delivery up to here has its run. */
  private done: GlobalPosition | undefined;
  private saved: GlobalPosition | undefined;
  private lastSave = 0;
  private saving: Promise<void> = Promise.resolve();
  private readonly store: EventStore;
  private readonly checkpoints: CheckpointStore;
  private readonly logger: DispatchWorkerLogger;
  private readonly onDispatched: (outcome: DispatchOutcome) => void;
  private readonly retry: DispatchRetry;

  constructor(dependencies: StoreDispatchDependencies) {
    this.store = dependencies.store;
    this.checkpoints = dependencies.checkpoints;
    this.logger = dependencies.logger;
    this.options = { ...DEFAULT_STORE_DISPATCH_OPTIONS, ...dependencies.options };
    this.onDispatched = dependencies.onDispatched ?? (() => undefined);
    this.follower = new SubscriptionFollow({
      store: this.store,
      streamPrefix: StreamCategories.delivery,
      retryDelayMs: this.options.retryDelayMs,
      after: () => this.done,
      handle: (event) => this.handle(event),
      onFailure: (error) => this.logger.error({ err: error }, 'dispatcher subscription failed; resubscribing'),
    });
    this.retry = dispatchRetry(dependencies, this.options, { isStopped: () => this.follower.stopped, signal: this.follower.stopping });
  }

  async start(): Promise<void> {
    const after = await this.checkpoints.load(STORE_DISPATCH_CHECKPOINT);
    this.done = after;
    this.saved = after;
    this.logger.info({ after: after ? `${after.commit}` : 'start' }, 'dispatcher subscribing to accepted deliveries');
    // Followed again after a failure once every delivery in flight has settled: `done` is where to go on from.
    this.follower.follow();
  }

  async stop(): Promise<void> {
    await this.follower.stop();
    await this.saveCheckpoint().catch(() => undefined);
  }

  private async handle(event: RecordedEvent): Promise<void> {
    if (this.follower.stopped) throw new Error('stopping: delivery left for the next start');
    const entry: InFlight = { position: event.position, done: false, task: Promise.resolve() };
    entry.task = (event.type === 'DeliveryAccepted' ? this.dispatchUntilDone(event) : Promise.resolve()).then(
      () => {
        entry.done = true;
        this.advance();
      },
      () => undefined, // stopped while retrying: left (not done) for the next start
    );
    this.follower.inFlight.push(entry);
    // Backpressure: at most `concurrency` deliveries in flight; wait for the oldest.
    if (this.follower.inFlight.length >= this.options.concurrency) await this.follower.inFlight[0].task;
  }

  private async dispatchUntilDone(event: RecordedEvent): Promise<void> {
    const delivery = event.data as DeliveryAccepted['data'];
    const traceparent = (event.metadata as { traceparent?: string } | null)?.traceparent ?? '';
    this.onDispatched(await dispatchUntilDone({ delivery, position: event.position, eventId: event.id, traceparent }, this.retry));
  }

  /** Moves `done` over the leading deliveries that have their runs; saves the checkpoint now and then. */
  private advance(): void {
    while (this.follower.inFlight[0]?.done) this.done = this.follower.inFlight.shift()?.position;
    if (Date.now() - this.lastSave >= this.options.checkpointEveryMs)
      void this.saveCheckpoint().catch((error: unknown) => this.logger.error({ err: error }, 'checkpoint save failed; retrying later'));
  }

  private saveCheckpoint(): Promise<void> {
    this.saving = this.saving
      .catch(() => undefined)
      .then(async () => {
        const position = this.done;
        if (!position || position === this.saved) return;
        this.lastSave = Date.now();
        await this.checkpoints.save(STORE_DISPATCH_CHECKPOINT, position);
        this.saved = position;
      });
    return this.saving;
  }
}
