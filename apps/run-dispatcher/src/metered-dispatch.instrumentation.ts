import type { DispatchDelivery, DispatchNotifiedDeliveryUseCase, DispatchOutcome, ParkDispatch } from '@wts/application';
import { metrics } from '@wts/observability';

/** What the Kafka handler delegates to: the use case, or a decorator of it (metrics). */
export type NotifiedDispatch = Pick<DispatchNotifiedDeliveryUseCase, 'execute'>;

const byOutcome = {
  created: metrics.runs.labels('created'),
  already_created: metrics.runs.labels('already_created'),
  parked: metrics.runs.labels('parked'),
  held: metrics.runs.labels('held'),
} satisfies Record<DispatchOutcome['kind'], unknown>;

function counted(outcome: DispatchOutcome): DispatchOutcome {
  byOutcome[outcome.kind].inc();
  return outcome;
}

/** Each dispatch outcome counted (wts_runs_total): a run created, one already there, parked, or held (no run until released). */
export function meteredDispatch(dispatch: DispatchDelivery): DispatchDelivery {
  return { execute: (input) => dispatch.execute(input).then(counted) };
}

/** A delivery the worker parks after repeated failures counted too (wts_runs_total{parked}), once durable. */
export function meteredPark(park: ParkDispatch): ParkDispatch {
  return {
    async execute(record, traceparent) {
      await park.execute(record, traceparent);
      byOutcome.parked.inc();
    },
  };
}

/**
 * A Kafka message the store does not confirm counted (wts_unverified_notifications_total). Its run
 * outcomes are counted by the meteredDispatch it delegates to.
 */
export function meteredNotifiedDispatch(dispatch: NotifiedDispatch): NotifiedDispatch {
  return {
    async execute(notification) {
      const outcome = await dispatch.execute(notification);
      if (outcome.kind === 'unverified') metrics.unverifiedNotifications.inc();
      return outcome;
    },
  };
}
