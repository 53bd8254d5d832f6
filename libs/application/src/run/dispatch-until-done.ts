import type { CheckpointStore, EventStore } from '@wts/event-store';
import { retryAfterFailure, type Signal } from '@wts/runtime';
import { classifyDispatchFailure, parksAfter } from './dispatch-failure.policy';
import { parkedDelivery, type DeliveryToDispatch, type DispatchDelivery, type DispatchOutcome } from './dispatch-delivery.usecase';
import type { ParkDispatch } from './park-dispatch.usecase';

export interface DispatchWorkerLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What a worker dispatching deliveries it follows in the store is made of; `options` its own tuning. */
export interface DispatchWorkerDependencies<Options> {
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  /** The dispatcher's use case: every delivery's run is made through it, whichever worker found it. */
  readonly dispatch: DispatchDelivery;
  /** Where a delivery goes that fails deterministically too often (the dispatch failure policy). */
  readonly park: ParkDispatch;
  readonly logger: DispatchWorkerLogger;
  readonly options?: Partial<Options>;
  /** Told of every delivery's outcome (metrics, tests). */
  readonly onDispatched?: (outcome: DispatchOutcome) => void;
}

/** What a worker dispatching from the store retries with, and how it is told to stop. */
export interface DispatchRetry {
  readonly dispatch: DispatchDelivery;
  /** Where a delivery goes that fails deterministically too often (the dispatch failure policy). */
  readonly park: ParkDispatch;
  readonly logger: DispatchWorkerLogger;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  /** False once the owner is stopping: the delivery is left for the next start. */
  readonly proceed: () => boolean;
  readonly interrupt: Signal;
}

/** The retry of a worker dispatching from the store: its use cases and logger, its backoff, and how it says it is stopping. */
export function dispatchRetry(
  uses: Pick<DispatchRetry, 'dispatch' | 'park' | 'logger'>,
  backoff: Pick<DispatchRetry, 'retryDelayMs' | 'maxRetryDelayMs'>,
  stopping: { readonly isStopped: () => boolean; readonly signal: Signal },
): DispatchRetry {
  return {
    dispatch: uses.dispatch,
    park: uses.park,
    logger: uses.logger,
    retryDelayMs: backoff.retryDelayMs,
    maxRetryDelayMs: backoff.maxRetryDelayMs,
    proceed: () => !stopping.isStopped(),
    interrupt: stopping.signal,
  };
}

/** The owner stopped while the delivery was still failing: it is left, unacknowledged, for the next start. */
export class DispatchStoppedError extends Error {
  constructor() {
    super('stopping: delivery left for the next start');
  }
}

/**
 * Dispatches until the delivery has its run, is held or is parked, with backoff between attempts.
 * The dispatch failure policy decides: a store outage is retried for as long as it lasts; any
 * other error that repeats (a bug, an event the store refuses) parks the delivery instead of
 * blocking the rest. The first attempt costs nothing more than the dispatch itself (the path of
 * every delivery); only a failure builds the retry. Throws DispatchStoppedError when stopped first.
 */
export async function dispatchUntilDone(input: DeliveryToDispatch, retry: DispatchRetry): Promise<DispatchOutcome> {
  try {
    return await retry.dispatch.execute(input);
  } catch (error) {
    return retryDispatch(input, error, retry);
  }
}

async function retryDispatch(input: DeliveryToDispatch, firstError: unknown, retry: DispatchRetry): Promise<DispatchOutcome> {
  let failures = 0;
  let lastError = '';
  const result = await retryAfterFailure(
    firstError,
    async () => (parksAfter(failures) ? parkDelivery(input, lastError, retry.park) : retry.dispatch.execute(input)),
    {
      initialDelayMs: retry.retryDelayMs,
      maxDelayMs: retry.maxRetryDelayMs,
      proceed: retry.proceed,
      interrupt: retry.interrupt,
      onFailure: (error) => {
        if (classifyDispatchFailure(error).kind === 'deterministic') failures++;
        lastError = error instanceof Error ? error.message : String(error);
        retry.logger.error({ err: error, deliveryId: input.delivery.deliveryId }, 'run creation failed; retrying');
      },
    },
  );
  if (result.kind === 'stopped') throw new DispatchStoppedError();
  return result.value;
}

async function parkDelivery(input: DeliveryToDispatch, error: string, park: ParkDispatch): Promise<DispatchOutcome> {
  await park.execute(parkedDelivery(input, error), input.traceparent);
  return { kind: 'parked', runId: input.delivery.runId, error };
}
