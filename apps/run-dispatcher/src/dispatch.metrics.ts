import type { DispatchOutcome, NotifiedDispatchOutcome } from '@wts/application';
import { metrics } from '@wts/observability';

const byOutcome = {
  created: metrics.runs.labels('created'),
  already_created: metrics.runs.labels('already_created'),
  parked: metrics.runs.labels('parked'),
} satisfies Record<DispatchOutcome['kind'], unknown>;

/** Counts a dispatch outcome (wts_runs_total) and hands it back. */
export function countDispatch(outcome: DispatchOutcome): DispatchOutcome {
  byOutcome[outcome.kind].inc();
  return outcome;
}

/** Counts a Kafka dispatch's outcome: a run outcome (wts_runs_total) or an unverified message (wts_unverified_notifications_total). */
export function countNotifiedDispatch(outcome: NotifiedDispatchOutcome): NotifiedDispatchOutcome {
  if (outcome.kind === 'unverified') metrics.unverifiedNotifications.inc();
  else countDispatch(outcome);
  return outcome;
}
