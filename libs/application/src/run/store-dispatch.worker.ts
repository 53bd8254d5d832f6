import { StreamCategories, type DeliveryAccepted } from '@wts/contracts';
import { EventStoreUnavailableError, type CheckpointStore, type EventStore, type GlobalPosition, type RecordedEvent, type Subscription } from '@wts/event-store';
import type { DispatchDeliveryUseCase, DispatchOutcome } from './dispatch-delivery.usecase';

export interface DispatchWorkerLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const STORE_DISPATCH_CHECKPOINT = 'run-dispatcher/store-subscription';

/** Attempts before an error that is not a store outage parks the delivery. */
export const MAX_DETERMINISTIC_FAILURES = 5;

/**
 * The embedded path from accepted deliveries to runs: a catch-up subscription on the store from
 * a durable checkpoint. A handler failure (store down) is retried in place with backoff — the
 * checkpoint never passes a delivery whose run does not exist. Checkpoints are saved at most
 * every `checkpointEveryMs` (handling is idempotent, so a replay after a crash is harmless).
 */
export class StoreDispatchWorker {
  private subscription: Subscription | undefined;
  private stopped = false;
  private pending: GlobalPosition | undefined;
  private lastSave = 0;
  private lastError = '';

  constructor(
    private readonly store: EventStore,
    private readonly checkpoints: CheckpointStore,
    private readonly dispatch: DispatchDeliveryUseCase,
    private readonly logger: DispatchWorkerLogger,
    private readonly options = { checkpointEveryMs: 200, retryDelayMs: 250, maxRetryDelayMs: 5000 },
    private readonly onDispatched: (outcome: DispatchOutcome) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    const after = await this.checkpoints.load(STORE_DISPATCH_CHECKPOINT);
    this.logger.info({ after: after ? `${after.commit}` : 'start' }, 'dispatcher subscribing to accepted deliveries');
    this.follow(after);
  }

  private follow(after: GlobalPosition | undefined): void {
    const subscription = this.store.subscribeToAll(
      { after, filter: { streamPrefixes: [StreamCategories.delivery] } },
      (event) => this.handle(event),
    );
    this.subscription = subscription;
    subscription.done.then(
      () => undefined,
      (error: unknown) => {
        this.logger.error({ err: error }, 'dispatcher subscription failed; resubscribing');
        if (this.stopped) return;
        setTimeout(() => {
          if (!this.stopped) this.follow(this.pending ?? after);
        }, this.options.retryDelayMs).unref();
      },
    );
  }

  private async handle(event: RecordedEvent): Promise<void> {
    if (event.type === 'DeliveryAccepted') {
      const delivery = event.data as DeliveryAccepted['data'];
      const traceparent = (event.metadata as { traceparent?: string } | null)?.traceparent ?? '';
      const input = { delivery, position: event.position, eventId: event.id, traceparent };
      let delay = this.options.retryDelayMs;
      for (let failures = 0; ; ) {
        if (this.stopped) throw new Error('stopping: delivery left for the next start');
        try {
          // A store outage is retried for as long as it lasts; any other error that repeats
          // (a bug, an event the store refuses) parks the delivery instead of blocking the rest.
          const deterministic = failures >= MAX_DETERMINISTIC_FAILURES;
          const outcome = deterministic ? await this.dispatch.park(input, this.lastError) : await this.dispatch.execute(input);
          this.onDispatched(outcome);
          break;
        } catch (error) {
          if (!(error instanceof EventStoreUnavailableError)) failures++;
          this.lastError = error instanceof Error ? error.message : String(error);
          this.logger.error({ err: error, deliveryId: delivery.deliveryId }, 'run creation failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, delay));
          delay = Math.min(delay * 2, this.options.maxRetryDelayMs);
        }
      }
    }
    this.pending = event.position;
    if (Date.now() - this.lastSave >= this.options.checkpointEveryMs) await this.saveCheckpoint();
  }

  private async saveCheckpoint(): Promise<void> {
    if (!this.pending) return;
    await this.checkpoints.save(STORE_DISPATCH_CHECKPOINT, this.pending);
    this.lastSave = Date.now();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop().catch(() => undefined);
    await this.saveCheckpoint().catch(() => undefined);
  }
}
