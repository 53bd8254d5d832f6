import { StreamCategories, Streams, type DeliveryAccepted, type WebhookReleased } from '@wts/contracts';
import { comparePositions, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { retryWithBackoff } from '@wts/runtime';
import type { DeliveryToDispatch, DispatchOutcome } from './dispatch-delivery.usecase';
import {
  DispatchStoppedError,
  dispatchRetry,
  dispatchUntilDone,
  type DispatchRetry,
  type DispatchWorkerDependencies,
} from './dispatch-until-done';
import { SubscriptionFollow, type InFlight } from './subscription-follow.worker';

/** Every release before this position has had all its held deliveries run. */
export const RELEASE_CHECKPOINT = 'run-dispatcher/releases';

/** How far the drain of one release has come (a kill -9 mid-release goes on from here). */
export function releaseDrainCheckpoint(releaseEventId: string): string {
  return `run-dispatcher/release-drain/${releaseEventId}`;
}

export interface ReleaseDrainOptions {
  /** Deliveries read from $all at a time while looking for the held ones. */
  readonly pageSize: number;
  /** Releases of different webhooks drained at once (each one's runs still one after the other). */
  readonly concurrentDrains: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}

export const DEFAULT_RELEASE_DRAIN_OPTIONS: ReleaseDrainOptions = {
  pageSize: 256,
  concurrentDrains: 4,
  retryDelayMs: 250,
  maxRetryDelayMs: 5000,
};

/** A held delivery's run is made through the dispatcher's use case exactly as any other; `onDispatched` is told of each. */
export interface ReleaseDrainDependencies extends DispatchWorkerDependencies<ReleaseDrainOptions> {
  /** Told when a release's held deliveries all have their runs. */
  readonly onReleased?: (webhookId: string, deliveries: number) => void;
}

/**
 * Runs what a hold held, once it is released. It follows the webhook streams in $all from a
 * durable checkpoint; at each `WebhookReleased` it reads the deliveries accepted between the hold's
 * start and the release, in $all order (acceptance order), and dispatches those of the webhook one
 * at a time — each run made only once the one before it exists — through the same use case as every
 * delivery, told to judge it as things stand at the release (the routine, the safety block, the
 * trigger account: a held delivery the routine now refuses is parked with the reason), or, for a
 * release with discard, to park it `discarded_by_operator`. Its progress through a release is checkpointed per page and
 * the release checkpoint moves past a release only once all of it is done, so a kill -9 at any
 * moment resumes where it was; a run made before the crash is met as "already created" (the run
 * stream's "must not exist" guard), never made twice. Every replica may run it: two drains of one
 * release make each run once, in order, as one does. Releases of different webhooks drain side by
 * side (up to `concurrentDrains`), so one large backlog does not hold up another webhook's release.
 *
 * The hold itself costs the other webhooks nothing: a held delivery is answered "held" and left
 * behind by the dispatcher like a finished one, so no partition or subscription waits for a release.
 */
export class ReleaseDrainWorker {
  /** Follows the webhook streams; its events in flight: releases draining, and what follows them. */
  private readonly follower: SubscriptionFollow;
  private readonly options: ReleaseDrainOptions;
  private readonly retry: DispatchRetry;
  /** Every webhook event up to here is handled: each release before it fully drained. */
  private after: GlobalPosition | undefined;
  /** Each webhook's latest drain: a webhook's releases drain one after the other, in order. */
  private readonly drainOf = new Map<string, Promise<void>>();
  private readonly slots: Slots;
  /** Checkpoint saves, one after the other (a later position never overwritten by an earlier one). */
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ReleaseDrainDependencies) {
    this.options = { ...DEFAULT_RELEASE_DRAIN_OPTIONS, ...deps.options };
    this.slots = new Slots(this.options.concurrentDrains);
    this.follower = new SubscriptionFollow({
      store: deps.store,
      streamPrefix: StreamCategories.webhook,
      retryDelayMs: this.options.retryDelayMs,
      after: () => this.after,
      handle: (event) => this.handle(event),
      onFailure: (error) => {
        if (!this.follower.stopped) this.deps.logger.error({ err: error }, 'release subscription failed; resubscribing');
      },
    });
    this.retry = dispatchRetry(deps, this.options, { isStopped: () => this.follower.stopped, signal: this.follower.stopping });
  }

  async start(): Promise<void> {
    this.after = await this.deps.checkpoints.load(RELEASE_CHECKPOINT);
    // Followed again after a failure once every drain under way has settled: `after` is where to go on from.
    this.follower.follow();
  }

  async stop(): Promise<void> {
    await this.follower.stop();
    await this.saving;
  }

  /**
   * A release starts draining at once, beside the other webhooks' (up to `concurrentDrains` at a
   * time), after its own webhook's previous release: one large backlog never holds up another
   * webhook's release. Any other webhook event only moves the checkpoint on, behind the drains.
   */
  private async handle(event: RecordedEvent): Promise<void> {
    if (this.follower.stopped) throw new Error('stopping: left for the next start');
    const entry: InFlight = { position: event.position, done: false, task: RESOLVED };
    if (event.type === 'WebhookReleased') {
      const { webhookId } = event.data as WebhookReleased['data'];
      const previous = this.drainOf.get(webhookId) ?? Promise.resolve();
      const drained = previous.then(() => this.slots.run(() => this.drainUntilDone(event)));
      this.drainOf.set(webhookId, drained);
      entry.task = drained.then(
        () => {
          if (this.drainOf.get(webhookId) === drained) this.drainOf.delete(webhookId);
          entry.done = true;
          this.advance();
        },
        () => undefined, // stopped while draining: left (not done) for the next start
      );
    } else {
      entry.done = true;
    }
    this.follower.inFlight.push(entry);
    this.advance();
    // Backpressure: a bounded number of webhook events waiting behind a drain.
    if (this.follower.inFlight.length >= MAX_EVENTS_BEHIND_DRAINS) await this.follower.inFlight[0].task;
  }

  /** Moves the checkpoint over the leading events whose drains are done; saved when a release is passed. */
  private advance(): void {
    let passedRelease = false;
    while (this.follower.inFlight[0]?.done) {
      const entry = this.follower.inFlight.shift() as InFlight;
      this.after = entry.position;
      passedRelease ||= entry.task !== RESOLVED;
    }
    if (passedRelease && this.after) {
      const position = this.after;
      this.saving = this.saving.then(() =>
        this.deps.checkpoints
          .save(RELEASE_CHECKPOINT, position)
          .catch((error: unknown) => this.deps.logger.error({ err: error }, 'release checkpoint save failed; the next release saves it')),
      );
    }
  }

  /** A release is drained whatever fails on the way (the store down): retried until done, or stopped. */
  private async drainUntilDone(release: RecordedEvent): Promise<void> {
    const result = await retryWithBackoff(() => this.drain(release), {
      initialDelayMs: this.options.retryDelayMs,
      maxDelayMs: this.options.maxRetryDelayMs,
      proceed: () => !this.follower.stopped,
      interrupt: this.follower.stopping,
      onFailure: (error) => this.deps.logger.error({ err: error, releaseEventId: release.id }, 'release drain failed; retrying'),
    });
    if (result.kind === 'stopped') throw new Error('stopping: release left for the next start');
  }

  private async drain(release: RecordedEvent): Promise<void> {
    const { webhookId } = release.data as WebhookReleased['data'];
    const discard = (release.data as WebhookReleased['data']).discard === true;
    const heldFrom = await this.holdStart(webhookId, release);
    if (!heldFrom) return;
    const progress = releaseDrainCheckpoint(release.id);
    const saved = await this.deps.checkpoints.load(progress);
    let after = saved && comparePositions(saved, heldFrom) > 0 ? saved : heldFrom;
    const outcomes: Record<DispatchOutcome['kind'], number> = { created: 0, already_created: 0, parked: 0, held: 0 };
    for (;;) {
      const page = await this.deps.store.readAll({
        after,
        limit: this.options.pageSize,
        filter: { streamPrefixes: [StreamCategories.delivery] },
      });
      let done = page.length < this.options.pageSize;
      for (const event of page) {
        // A stop (SIGTERM) is not held up by a long release: what this page did is met as "already created" next time.
        if (this.follower.stopped) throw new DispatchStoppedError();
        if (comparePositions(event.position, release.position) >= 0) {
          done = true;
          break;
        }
        if (event.type === 'DeliveryAccepted' && (event.data as DeliveryAccepted['data']).webhookId === webhookId) {
          const outcome = await dispatchUntilDone(held(event, release.position, discard), this.retry);
          outcomes[outcome.kind] += 1;
          this.deps.onDispatched?.(outcome);
        }
        after = event.position;
      }
      await this.deps.checkpoints.save(progress, after);
      if (done) break;
    }
    const count = outcomes.created + outcomes.already_created + outcomes.parked + outcomes.held;
    const message = discard ? 'hold released with discard: held deliveries parked' : 'hold released: held deliveries dispatched';
    this.deps.logger.info({ webhookId, ...outcomes, releaseEventId: release.id }, message);
    this.deps.onReleased?.(webhookId, count);
  }

  /** Where the hold this release ends began: the WebhookHeld that found the webhook not held. */
  private async holdStart(webhookId: string, release: RecordedEvent): Promise<GlobalPosition | undefined> {
    const events = await this.deps.store.readStream(Streams.webhook(webhookId), { maxCount: Number(release.revision) + 1 });
    let start: GlobalPosition | undefined;
    for (const event of events) {
      if (event.revision >= release.revision) break;
      if (event.type === 'WebhookHeld' && start === undefined) start = event.position;
      if (event.type === 'WebhookReleased') start = undefined;
    }
    return start;
  }
}

/** A held delivery, to be judged as things stand at its release (or parked, the release discarding it). */
function held(event: RecordedEvent, at: GlobalPosition, discard: boolean): DeliveryToDispatch {
  const traceparent = (event.metadata as { traceparent?: string } | null)?.traceparent ?? '';
  const delivery = event.data as DeliveryAccepted['data'];
  return { delivery, position: event.position, eventId: event.id, traceparent, request: { by: 'release', at, discard } };
}

const RESOLVED: Promise<void> = Promise.resolve();

/** Webhook events (configuration: few) the subscription may run ahead of the oldest unfinished drain. */
const MAX_EVENTS_BEHIND_DRAINS = 1000;

/** At most `size` drains at once; the others wait their turn, in order. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}
