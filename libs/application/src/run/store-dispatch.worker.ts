import { StreamCategories, type DeliveryAccepted } from '@wts/contracts';
import type { CheckpointStore, EventStore, GlobalPosition, RecordedEvent, Subscription } from '@wts/event-store';
import { Signal } from '../shared/async.util';
import type { DispatchOutcome } from './dispatch-delivery.usecase';
import {
  dispatchRetry,
  dispatchUntilDone,
  type DispatchRetry,
  type DispatchWorkerDependencies,
  type DispatchWorkerLogger,
} from './dispatch-until-done';

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

interface InFlight {
  readonly position: GlobalPosition;
  task: Promise<void>;
  done: boolean;
}

/**
 * The embedded path from accepted deliveries to runs: a catch-up subscription on the store from
 * a durable checkpoint, dispatching up to `concurrency` deliveries at once (their appends share
 * commits). A failure (store down) is retried in place with backoff, and the checkpoint only ever
 * moves past a delivery once it and every delivery before it has its run (or was parked).
 */
export class StoreDispatchWorker {
  private subscription: Subscription | undefined;
  private stopped = false;
  private readonly inFlight: InFlight[] = [];
  private readonly options: StoreDispatchOptions;
  /** Every delivery up to here has its run. */
  private done: GlobalPosition | undefined;
  private saved: GlobalPosition | undefined;
  private lastSave = 0;
  private saving: Promise<void> = Promise.resolve();
  private readonly stopping = new Signal();
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
    this.retry = dispatchRetry(dependencies, this.options, { isStopped: () => this.stopped, signal: this.stopping });
  }

  async start(): Promise<void> {
    const after = await this.checkpoints.load(STORE_DISPATCH_CHECKPOINT);
    this.done = after;
    this.saved = after;
    this.logger.info({ after: after ? `${after.commit}` : 'start' }, 'dispatcher subscribing to accepted deliveries');
    this.follow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.notify();
    await this.subscription?.stop().catch(() => undefined);
    await Promise.all(this.inFlight.map((entry) => entry.task));
    await this.saveCheckpoint().catch(() => undefined);
  }

  private follow(): void {
    // Called at start and once every delivery in flight has settled: `done` is where to go on from.
    const subscription = this.store.subscribeToAll({ after: this.done, filter: { streamPrefixes: [StreamCategories.delivery] } }, (event) =>
      this.handle(event),
    );
    this.subscription = subscription;
    subscription.done.then(
      () => undefined,
      (error: unknown) => {
        this.logger.error({ err: error }, 'dispatcher subscription failed; resubscribing');
        if (this.stopped) return;
        setTimeout(() => {
          if (!this.stopped) void Promise.all(this.inFlight.map((entry) => entry.task)).then(() => this.follow());
        }, this.options.retryDelayMs).unref();
      },
    );
  }

  private async handle(event: RecordedEvent): Promise<void> {
    if (this.stopped) throw new Error('stopping: delivery left for the next start');
    const entry: InFlight = { position: event.position, done: false, task: Promise.resolve() };
    entry.task = (event.type === 'DeliveryAccepted' ? this.dispatchUntilDone(event) : Promise.resolve()).then(
      () => {
        entry.done = true;
        this.advance();
      },
      () => undefined, // stopped while retrying: left (not done) for the next start
    );
    this.inFlight.push(entry);
    // Backpressure: at most `concurrency` deliveries in flight; wait for the oldest.
    if (this.inFlight.length >= this.options.concurrency) await this.inFlight[0].task;
  }

  private async dispatchUntilDone(event: RecordedEvent): Promise<void> {
    const delivery = event.data as DeliveryAccepted['data'];
    const traceparent = (event.metadata as { traceparent?: string } | null)?.traceparent ?? '';
    this.onDispatched(await dispatchUntilDone({ delivery, position: event.position, eventId: event.id, traceparent }, this.retry));
  }

  /** Moves `done` over the leading deliveries that have their runs; saves the checkpoint now and then. */
  private advance(): void {
    while (this.inFlight[0]?.done) this.done = this.inFlight.shift()?.position;
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
