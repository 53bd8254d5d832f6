import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { decideRun, runDecider, type CreateRun } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { foldStream } from '../shared/command.handler';
import { causedBy, toAppend } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.ports';
import { cryptoRandom } from '../shared/system-runtime.adapter';
import { ParkDispatchUseCase, type DispatchToPark } from './park-dispatch.usecase';
import { RoutineHistoryCache } from './routine-history.cache';
import { WebhookHistoryCache } from './webhook-history.cache';

export interface DeliveryToDispatch {
  readonly delivery: DeliveryAccepted['data'];
  /** Where the delivery sits in $all: the routine is read as it was at that point. */
  readonly position: GlobalPosition;
  readonly eventId: string;
  readonly traceparent: string;
  /**
   * The release of the hold the delivery was accepted under is running it (ReleaseDrainWorker):
   * create its run although its webhook was held at its position.
   */
  readonly releasing?: boolean;
  /**
   * An operator asks for it again (the page's re-dispatch, the CLI's replay): held at acceptance, it
   * runs now if that hold has been released since (the release drain may have parked it), and
   * waits for the release if not.
   */
  readonly byOperator?: boolean;
}

export type DispatchOutcome =
  | { readonly kind: 'created'; readonly runId: string }
  | { readonly kind: 'already_created'; readonly runId: string }
  | { readonly kind: 'parked'; readonly runId: string; readonly error: string }
  /** Accepted while its webhook was held: no run until the hold is released (the release runs it). */
  | { readonly kind: 'held'; readonly runId: string };

/** What dispatches a delivery: the use case, or a decorator of it (tracing, metrics). */
export type DispatchDelivery = Pick<DispatchDeliveryUseCase, 'execute'>;

/**
 * One accepted delivery → exactly one run. The fast path reads nothing first: the decision depends
 * only on the delivery and the routine as it was at acceptance, and `run-<run_id>` is appended with
 * "stream must not exist" — the guard, which proves the run stream was empty when it succeeds. A
 * conflict means the stream exists (a redelivery or a replay): the run stream is read and folded,
 * and the decider decides again on it (an existing run: no events, already created). Concurrent
 * calls are safe (the append is the guard) and share the store's commits. Store failures throw: the
 * caller retries without acknowledging, so nothing is lost.
 */
export class DispatchDeliveryUseCase {
  private readonly routines: RoutineHistoryCache;
  private readonly webhooks: WebhookHistoryCache;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly random: RandomSource = cryptoRandom,
    private readonly park: ParkDispatchUseCase = new ParkDispatchUseCase(store, clock),
  ) {
    this.routines = new RoutineHistoryCache(store);
    this.webhooks = new WebhookHistoryCache(store);
  }

  async execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    const { delivery } = input;
    // Judged as at acceptance: held then, it waits for its release (the release drain runs it; an
    // operator asking again after the release runs it too).
    const [routine, webhook] = await Promise.all([
      this.routines.at(delivery.routineId, input.position),
      input.releasing ? undefined : this.webhooks.at(delivery.webhookId, input.position),
    ]);
    if (webhook && webhook.status !== 'not_configured' && webhook.hold && !(await this.releasedSinceFor(input))) {
      return { kind: 'held', runId: delivery.runId };
    }
    const command: CreateRun = { type: 'CreateRun', delivery, routine, now: this.clock.now().toISOString() };
    // Decided as if no run existed; the append below proves it (or conflicts).
    const decision = decideRun(command, null);
    // Rare: a run made by an earlier build that judged differently is still the delivery's run.
    if (decision.kind === 'rejected') return this.decideOnRecordedRun(command, input);
    if (decision.events.length === 0) return { kind: 'already_created', runId: delivery.runId };
    // A fresh event id each time: a redelivery, a replay or a retry after a lost acknowledgement
    // meets the existing run as a conflict (already created), never as an idempotent repeat that
    // would look like a new run.
    const context = causedBy(delivery.deliveryId, input.eventId, input.traceparent);
    const events = toAppend(decision.events, context, () => this.random.uuid());
    const result = await this.store.append(Streams.run(delivery.runId), events, 'no_stream');
    return result.kind === 'appended' ? { kind: 'created', runId: delivery.runId } : this.decideOnRecordedRun(command, input);
  }

  private async releasedSinceFor(input: DeliveryToDispatch): Promise<boolean> {
    return input.byOperator === true && this.webhooks.releasedSince(input.delivery.webhookId, input.position);
  }

  /** The decision on the run stream as it is: an existing run is already created; no run and a rejection parks. */
  private async decideOnRecordedRun(command: CreateRun, input: DeliveryToDispatch): Promise<DispatchOutcome> {
    const runId = input.delivery.runId;
    const state = foldStream(await this.store.readStream(Streams.run(runId)), runDecider);
    const decision = decideRun(command, state);
    if (decision.kind === 'rejected') {
      const error = `${decision.code}: ${decision.detail}`;
      await this.park.execute(parkedDelivery(input, error), input.traceparent);
      return { kind: 'parked', runId, error };
    }
    if (decision.events.length === 0) return { kind: 'already_created', runId };
    // The append conflicted, so the stream exists, yet it holds no run: not a stream this service wrote.
    throw new Error(`${Streams.run(runId)} exists but holds no run`);
  }
}

/** A delivery that can never become a run, parked on `parked-<event id>` with its error. */
export function parkedDelivery(input: DeliveryToDispatch, error: string): DispatchToPark {
  return {
    sourceEventId: input.eventId,
    sourceStream: Streams.delivery(input.delivery.deliveryId),
    sourceType: 'DeliveryAccepted',
    deliveryId: input.delivery.deliveryId,
    routineId: input.delivery.routineId,
    error,
  };
}
