import {
  DispatchDeliveryUseCase,
  ParkDispatchUseCase,
  ReadModelProjector,
  ReleaseDrainWorker,
  StoreDispatchWorker,
  systemClock,
  type StoreDispatchDependencies,
} from '@wts/application';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import type { ReadModelStore } from '@wts/read-models';

/** A logger that says nothing (the dispatcher's and the projector's shape). */
export const SILENT_LOGGER = { info: (): void => undefined, error: (): void => undefined };

/** What both dispatching workers run with: on `store`, with the system clock, from the checkpoints of `checkpointsFrom`, silently. */
function dispatchingOn(
  store: EventStore,
  checkpointsFrom: { checkpoints(): CheckpointStore },
): Pick<StoreDispatchDependencies, 'store' | 'checkpoints' | 'dispatch' | 'park' | 'logger'> {
  return {
    store,
    checkpoints: checkpointsFrom.checkpoints(),
    dispatch: new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock)),
    park: new ParkDispatchUseCase(store, systemClock),
    logger: SILENT_LOGGER,
  };
}

/**
 * Starts the run-dispatcher's store worker in process: it dispatches and parks on `store` with the
 * system clock, from the checkpoints of `checkpointsFrom` (the store itself unless it is wrapped),
 * silently; `overrides` replace any of these (a traced dispatch, options, onDispatched).
 */
export async function startStoreDispatcher(
  store: EventStore,
  checkpointsFrom: { checkpoints(): CheckpointStore },
  overrides: Partial<StoreDispatchDependencies> = {},
): Promise<StoreDispatchWorker> {
  const worker = new StoreDispatchWorker({ ...dispatchingOn(store, checkpointsFrom), ...overrides });
  await worker.start();
  return worker;
}

/** Starts the release drain (a released hold's deliveries run, in order), as the run-dispatcher does beside its worker. */
export async function startReleaseDrain(
  store: EventStore,
  checkpointsFrom: { checkpoints(): CheckpointStore },
): Promise<ReleaseDrainWorker> {
  const worker = new ReleaseDrainWorker(dispatchingOn(store, checkpointsFrom));
  await worker.start();
  return worker;
}

/** Starts the read-model projector, tuned to follow the store within milliseconds. */
export function startFastProjector(store: EventStore, readModels: ReadModelStore): ReadModelProjector {
  const projector = new ReadModelProjector(store, readModels, SILENT_LOGGER, {
    batchSize: 500,
    flushEveryMs: 5,
    leaseRetryMs: 100,
    retryDelayMs: 100,
    verifyEveryMs: 200,
  });
  projector.start();
  return projector;
}
