import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { DISCARDED_DETAIL, decideRun, runDecider, type CreateRun, type RoutineState } from '@wts/domain';
import { comparePositions, type EventStore, type GlobalPosition } from '@wts/event-store';
import { foldStream } from '../shared/command.handler';
import { causedBy, toAppend } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.port';
import { cryptoRandom } from '../shared/system-runtime.adapter';
import { AccountActivityCache } from './account-activity.cache';
import type { DispatchToPark, ParkDispatch } from './park-dispatch.usecase';
import { RoutineHistoryCache } from './routine-history.cache';
import { WebhookHistoryCache } from './webhook-history.cache';

/**
 * Who asks for a delivery's run, which says as of when it is judged (the routine, the safety
 * block, the trigger account):
 * - `dispatcher` (the store worker, the Kafka consumer): as at acceptance. Accepted while its
 *   webhook was held, it is left for the release (answered "held").
 * - `release`: the drain of the release at `at` (the `WebhookReleased` event's position), for a
 *   delivery that release's hold kept: as things stand at the release (deterministic on every
 *   replay of it); `discard`: parked `discarded_by_operator`, no run.
 * - `replay` (the command line's replay to the dispatcher): as `dispatcher`, but a held delivery
 *   whose hold has since ended is judged as its release judged it (discarded: parked).
 * - `redispatch`: an operator re-dispatching its park, recorded at `at`: as things stand then
 *   (whatever ended its hold, a discard too); still held, it waits for the release.
 */
export type DispatchRequest =
  | { readonly by: 'dispatcher' }
  | { readonly by: 'release'; readonly at: GlobalPosition; readonly discard: boolean }
  | { readonly by: 'replay' }
  | { readonly by: 'redispatch'; readonly at: GlobalPosition };

export interface DeliveryToDispatch {
  readonly delivery: DeliveryAccepted['data'];
  /** Where the delivery sits in $all: what it is judged on unless it was held or is re-dispatched. */
  readonly position: GlobalPosition;
  readonly eventId: string;
  readonly traceparent: string;
  /** Absent: the dispatcher's own. */
  readonly request?: DispatchRequest;
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
 * only on the delivery and the routine as it was at acceptance (or, for a delivery a hold kept or an
 * operator re-dispatches, the routine and the account as things stand then: `DispatchRequest`), and `run-<run_id>` is appended with
 * "stream must not exist" — the guard, which proves the run stream was empty when it succeeds. A
 * conflict means the stream exists (a redelivery or a replay): the run stream is read and folded,
 * and the decider decides again on it (an existing run: no events, already created). Concurrent
 * calls are safe (the append is the guard) and share the store's commits. Store failures throw: the
 * caller retries without acknowledging, so nothing is lost.
 */
export class DispatchDeliveryUseCase {
  private readonly routines: RoutineHistoryCache;
  private readonly webhooks: WebhookHistoryCache;
  private readonly accounts: AccountActivityCache;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly park: ParkDispatch,
    private readonly random: RandomSource = cryptoRandom,
  ) {
    this.routines = new RoutineHistoryCache(store);
    this.webhooks = new WebhookHistoryCache(store);
    this.accounts = new AccountActivityCache(store);
  }

  async execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    const { delivery } = input;
    const judgement = await this.judgement(input);
    const now = this.clock.now().toISOString();
    if (judgement.kind === 'held') return { kind: 'held', runId: delivery.runId };
    // Parked unless an operator has run it since: decided on the run stream as it is.
    if (judgement.kind === 'discarded')
      return this.decideOnRecordedRun({ type: 'CreateRun', delivery, routine: null, discarded: true, now }, input);
    // As at acceptance (the routine read beside the webhook), the ingress accepted an active account;
    // as things stand later, it may not be.
    const [routine, accountActive] =
      judgement.kind === 'as_accepted'
        ? [judgement.routine, undefined]
        : await Promise.all([
            this.routines.at(delivery.routineId, judgement.at),
            this.accounts.activeAt(delivery.triggerAccount.accountId, judgement.at),
          ]);
    const command: CreateRun = { type: 'CreateRun', delivery, routine, now, ...(accountActive === undefined ? {} : { accountActive }) };
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

  /** As of where the delivery is judged, or why it is not judged now (still held; its hold discarded). */
  private async judgement(input: DeliveryToDispatch): Promise<Judgement> {
    const request = input.request ?? { by: 'dispatcher' };
    if (request.by === 'release') return request.discard ? { kind: 'discarded' } : later(request.at);
    const { webhookId, routineId } = input.delivery;
    // Both read at once: the routine as at acceptance is what most deliveries are judged on.
    const [webhook, routine] = await Promise.all([
      this.webhooks.at(webhookId, input.position),
      this.routines.at(routineId, input.position),
    ]);
    if (webhook.status === 'not_configured' || webhook.hold === null) {
      return request.by === 'redispatch' ? later(request.at) : { kind: 'as_accepted', routine };
    }
    // Accepted while held: the release drain runs it; an operator asking again runs it once released.
    if (request.by === 'dispatcher') return { kind: 'held' };
    const release = await this.webhooks.releaseAfter(webhookId, input.position);
    if (!release) return { kind: 'held' };
    // Asked while that hold still held it (released since): the release judges it, not this request.
    if (request.by === 'redispatch') return comparePositions(release.position, request.at) > 0 ? { kind: 'held' } : later(request.at);
    return release.discard ? { kind: 'discarded' } : later(release.position);
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

/** The park's error of a delivery kept by a hold that the operator released with discard. */
export const DISCARDED_BY_OPERATOR = `discarded_by_operator: ${DISCARDED_DETAIL}`;

type Judgement =
  | { readonly kind: 'as_accepted'; readonly routine: RoutineState | null }
  | { readonly kind: 'later'; readonly at: GlobalPosition }
  | { readonly kind: 'held' }
  | { readonly kind: 'discarded' };

/** Judged as things stand at `at`, a place after the delivery's acceptance. */
function later(at: GlobalPosition): Judgement {
  return { kind: 'later', at };
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
