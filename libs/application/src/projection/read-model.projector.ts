import { comparePositions, type EventStore, type GlobalPosition, type RecordedEvent, type Subscription } from '@wts/event-store';
import type { ProjectionChange, ReadModelStore } from '@wts/read-models';
import { Signal, sleep } from '@wts/runtime';
import { PROJECTED_PREFIXES, READ_MODEL_PROJECTION, toProjectionChanges } from './read-model.projection';

export interface ProjectorLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ProjectorOptions {
  /** Rows written per transaction at most. */
  readonly batchSize: number;
  /** How long a row may wait for more before its batch is written. */
  readonly flushEveryMs: number;
  /** How often a replica without the lease asks for it again. */
  readonly leaseRetryMs: number;
  /** Pause after a failure (store or database down) before starting again from the checkpoint. */
  readonly retryDelayMs: number;
  /**
   * How often an idle projector checks that its checkpoint is still where it left it (a rebuild may
   * have reset it) and that it still holds the lease.
   */
  readonly verifyEveryMs: number;
}

export const DEFAULT_PROJECTOR_OPTIONS: ProjectorOptions = {
  batchSize: 500,
  flushEveryMs: 20,
  leaseRetryMs: 2_000,
  retryDelayMs: 500,
  verifyEveryMs: 2_000,
};

/** The checkpoint moved under this projector (a rebuild, or a second writer): start again from it. */
class CheckpointMovedError extends Error {}

/**
 * The one projector of the read-model database: follows deliveries, runs, parks and the audited
 * admin writes from its checkpoint and writes each batch of rows together with the new checkpoint in one transaction,
 * so every event is projected exactly once through crashes. One writer among replicas (the
 * database's lease); a second writer would only lose its compare-and-set.
 */
export class ReadModelProjector {
  private stopped = false;
  private running: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  /** Notified at stop: a wait (for the lease, or after a failure) ends at once. */
  private readonly stopping = new Signal();

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly logger: ProjectorLogger,
    private readonly options: ProjectorOptions = DEFAULT_PROJECTOR_OPTIONS,
  ) {}

  private committed: GlobalPosition | undefined;

  /** Metrics: where the read models are, as last committed (or loaded) by this projector. */
  committedPosition(): GlobalPosition | undefined {
    return this.committed;
  }

  /** Metrics: whether this replica's projector runs (it holds the lease). */
  get isRunning(): boolean {
    return !this.stopped && this.readModels.holdsProjectorLease();
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.notify();
    await this.subscription?.stop();
    await this.running;
  }

  private async loop(): Promise<void> {
    let leader = false;
    while (!this.stopped) {
      try {
        if (!(await this.readModels.tryAcquireProjectorLease())) {
          if (leader) this.logger.info({}, 'read-model projector: another replica holds the lease; standing by');
          leader = false;
          await sleep(this.options.leaseRetryMs, this.stopping);
          continue;
        }
        if (!leader) this.logger.info({}, 'read-model projector: this replica writes the read models');
        leader = true;
        await this.projectFromCheckpoint();
      } catch (error) {
        if (this.stopped) return;
        if (!(error instanceof CheckpointMovedError))
          this.logger.error({ err: error }, 'read-model projector failed; starting again from its checkpoint');
        await sleep(error instanceof CheckpointMovedError ? 0 : this.options.retryDelayMs, this.stopping);
      }
    }
  }

  /** Runs until stopped (resolves) or until something fails (rejects). */
  private async projectFromCheckpoint(): Promise<void> {
    let checkpoint = await this.readModels.loadCheckpoint(READ_MODEL_PROJECTION);
    this.committed = checkpoint;
    const pending: { position: GlobalPosition; changes: readonly ProjectionChange[] }[] = [];
    let progress: GlobalPosition | undefined;
    let timer: NodeJS.Timeout | undefined;
    let writing: Promise<void> = Promise.resolve();
    let failure: unknown;

    const write = async (): Promise<void> => {
      const batch = pending.splice(0, pending.length);
      const last = batch.at(-1)?.position;
      const to = [last, progress].reduce<GlobalPosition | undefined>(
        (a, b) => (!b ? a : !a || comparePositions(b, a) > 0 ? b : a),
        undefined,
      );
      if (!to || (checkpoint && comparePositions(to, checkpoint) <= 0)) return;
      if (!this.readModels.holdsProjectorLease()) throw new Error('the projector lease was lost');
      const changes = batch.flatMap((item) => item.changes);
      if (!(await this.readModels.commit(READ_MODEL_PROJECTION, changes, checkpoint, to))) throw new CheckpointMovedError();
      checkpoint = to;
      this.committed = to;
    };
    const flush = (): Promise<void> => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      writing = writing.then(write).catch((error: unknown) => {
        failure ??= error;
        void this.subscription?.stop();
      });
      return writing;
    };
    const handle = async (event: RecordedEvent): Promise<void> => {
      if (failure) throw failure;
      pending.push({ position: event.position, changes: toProjectionChanges(event) });
      if (pending.length >= this.options.batchSize) await flush();
      else timer ??= setTimeout(() => void flush(), this.options.flushEveryMs);
      if (failure) throw failure;
    };

    // While idle nothing is written, so nothing would notice a reset or a lost lease: look now and then.
    const verifier = setInterval(() => {
      writing = writing
        .then(async () => {
          const stored = await this.readModels.loadCheckpoint(READ_MODEL_PROJECTION);
          const moved = stored === undefined ? checkpoint !== undefined : !checkpoint || comparePositions(stored, checkpoint) !== 0;
          if (moved) throw new CheckpointMovedError();
          if (!this.readModels.holdsProjectorLease()) throw new Error('the projector lease was lost');
        })
        .catch((error: unknown) => {
          failure ??= error;
          void this.subscription?.stop();
        });
    }, this.options.verifyEveryMs);
    verifier.unref();

    const subscription = this.store.subscribeToAll(
      {
        after: checkpoint,
        filter: { streamPrefixes: PROJECTED_PREFIXES },
        // Long stretches of other streams move the checkpoint too (a restart need not rescan them).
        onProgress: (position) => {
          progress = position;
          timer ??= setTimeout(() => void flush(), this.options.flushEveryMs);
        },
      },
      handle,
    );
    this.subscription = subscription;
    try {
      await subscription.done;
    } finally {
      clearInterval(verifier);
      if (timer) clearTimeout(timer);
      await writing;
    }
    if (failure) throw failure;
    if (!this.stopped) throw new Error('the subscription ended');
    await flush();
    if (failure) throw failure;
  }
}
