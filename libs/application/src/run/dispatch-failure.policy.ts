import { EventStoreUnavailableError } from '@wts/event-store';
import { describeError } from '@wts/runtime';

/**
 * How a failed dispatch goes on: `transient` (the store is unavailable) is retried in place for as
 * long as it lasts; `deterministic` (a bug, an event the store refuses) will not be fixed by
 * retrying, so after DISPATCH_ATTEMPTS_BEFORE_PARKING attempts the delivery is parked instead of
 * blocking the ones behind it. The embedded store worker and the Kafka consumer apply the same rule.
 */
export interface DispatchFailure {
  readonly kind: 'transient' | 'deterministic';
  /** Stable snake_case code (the dead letter's `error-code` on the Kafka path). */
  readonly code: 'store_unavailable' | 'dispatch_failed';
  /** `<name>: <message>` of the error. */
  readonly message: string;
}

/** Attempts that fail deterministically before the delivery is parked. */
export const DISPATCH_ATTEMPTS_BEFORE_PARKING = 5;

export function classifyDispatchFailure(error: unknown): DispatchFailure {
  const message = describeError(error);
  if (error instanceof EventStoreUnavailableError) return { kind: 'transient', code: 'store_unavailable', message };
  return { kind: 'deterministic', code: 'dispatch_failed', message };
}

/** After this many deterministic failures, park rather than try again. */
export function parksAfter(deterministicFailures: number): boolean {
  return deterministicFailures >= DISPATCH_ATTEMPTS_BEFORE_PARKING;
}
