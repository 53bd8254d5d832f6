/**
 * The run-dispatcher's object graph, built with `new` in one typed function, the same style as
 * ingress.composition.ts: not Nest providers by class type, because the constructors take ports
 * (the store, the clock), loggers and callbacks that Nest could only inject through tokens and
 * casts; here the compiler checks every argument, and the decorators (tracing, then metrics) are
 * applied where the object is made. Nest gets the finished objects once (dispatcherProviders).
 * Called per app (DispatcherModule.forRoot): every app instance owns its own.
 */
import type { Provider, ValueProvider } from '@nestjs/common';
import {
  cryptoRandom,
  DispatchDeliveryUseCase,
  PayloadRemover,
  PayloadRetentionSweeper,
  DispatchNotifiedDeliveryUseCase,
  ErasureJob,
  ErasureRunner,
  PayloadReader,
  awaitProjector,
  erasureCandidatesOf,
  ParkDispatchUseCase,
  ReleaseDrainWorker,
  StoreDispatchWorker,
  systemClock,
} from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { tracedDispatch } from '@wts/observability';
import { provideValue, type ThreadLogger } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import type { Logger } from 'pino';
import { NOTIFIED_DISPATCH } from './delivery-accepted.controller';
import { DispatchWorkerLifecycle } from './dispatch-worker.lifecycle';
import { meteredDispatch, meteredNotifiedDispatch, meteredPark, type NotifiedDispatch } from './metered-dispatch.instrumentation';
import { StoreFollowersLifecycle } from './store-followers.lifecycle';
import { storeFollowersThread } from './dispatcher-threads.factory';
import { PayloadSweepLifecycle } from './payload-sweep.lifecycle';
import { ErasureRunnerLifecycle } from './erasure-runner.lifecycle';
import { ReleaseDrainLifecycle } from './release-drain.lifecycle';

export interface DispatcherDependencies {
  readonly config: AppConfig;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  /** The service's pino logger (main.ts makes it Nest's logger too). */
  readonly logger: Logger;
  /** The read-model database this service's projector writes (the ingress lists from it). */
  readonly readModels: ReadModelStore;
}

export interface DispatcherGraph {
  /** The read-model projector and, with Kafka, the run relay: their thread (both shapes). */
  readonly followers: StoreFollowersLifecycle;
  /** Removes payloads past their retention, then gives their space back (both shapes). */
  readonly payloadSweep: PayloadSweepLifecycle;
  /** Runs erasures asked for to their end, resuming any left unfinished (both shapes). */
  readonly erasures: ErasureRunnerLifecycle;
  /** Runs a released hold's deliveries, in order (both shapes). */
  readonly releases: ReleaseDrainLifecycle;
  /** How accepted deliveries arrive: Kafka messages for the DeliveryAccepted handler, or the store subscription. */
  readonly deliveries:
    | { readonly kind: 'kafka'; readonly dispatch: NotifiedDispatch }
    | { readonly kind: 'embedded'; readonly worker: DispatchWorkerLifecycle };
}

export function composeDispatcher(deps: DispatcherDependencies): DispatcherGraph {
  const { store, checkpoints, readModels } = deps;
  const { eventStore, storage, database, tracing, kafka } = deps.config;
  // The read-model projector and, with Kafka, the relay of run events to routines.runs.v1: on a
  // thread of their own, with their own handles on the store and the read models (store-followers.thread).
  const runRelay = kafka && { kafka, payloadRetentionSeconds: deps.config.limits.payloadRetentionSeconds };
  const followers = new StoreFollowersLifecycle(
    storeFollowersThread({ eventStore, storage, database, tracing, runRelay }, { store, logger: deps.logger }),
    readModels,
  );
  // One park use case: the dispatch use cases park through it as it is (their parks are counted as
  // dispatch outcomes), the workers through its metered decorator.
  const parkUseCase = new ParkDispatchUseCase(store, systemClock);
  const dispatch = meteredDispatch(tracedDispatch(new DispatchDeliveryUseCase(store, systemClock, parkUseCase)));
  const park = meteredPark(parkUseCase);
  const releases = new ReleaseDrainLifecycle(
    new ReleaseDrainWorker({ store, checkpoints, dispatch, park, logger: childLog(deps.logger, 'ReleaseDrainWorker') }),
  );
  const payloadSweep = payloadSweepLifecycle(store, readModels, deps.config.eventStore.connectionString !== undefined);
  const erasures = erasureRunnerLifecycle(store, readModels);
  if (kafka) {
    // The message names a delivery; the run is made from what the store holds for it.
    return {
      followers,
      payloadSweep,
      erasures,
      releases,
      deliveries: { kind: 'kafka', dispatch: meteredNotifiedDispatch(new DispatchNotifiedDeliveryUseCase(store, dispatch, parkUseCase)) },
    };
  }
  const worker = new StoreDispatchWorker({ store, checkpoints, dispatch, park, logger: childLog(deps.logger, 'StoreDispatchWorker') });
  return {
    followers,
    payloadSweep,
    erasures,
    releases,
    deliveries: { kind: 'embedded', worker: new DispatchWorkerLifecycle(worker) },
  };
}

/**
 * The embedded store finds expired payloads by its own index; EventStoreDB has none, so the read
 * model (rm_deliveries, by expiry) says which are due there.
 */
function payloadSweepLifecycle(store: EventStore, readModels: ReadModelStore, eventStoreDb: boolean): PayloadSweepLifecycle {
  const remover = new PayloadRemover(store, systemClock, cryptoRandom);
  const due = eventStoreDb
    ? (now: Date, limit: number): Promise<readonly string[]> => readModels.payloadsDue(now, limit)
    : (now: Date, limit: number): Promise<readonly string[]> => store.payloads().due(now.getTime(), limit);
  return new PayloadSweepLifecycle(new PayloadRetentionSweeper(store, remover, due, systemClock));
}

function erasureRunnerLifecycle(store: EventStore, readModels: ReadModelStore): ErasureRunnerLifecycle {
  const job = new ErasureJob({
    store,
    remover: new PayloadRemover(store, systemClock, cryptoRandom),
    reader: new PayloadReader(store),
    candidates: erasureCandidatesOf(readModels),
    // The projector beside it (this process's, or another replica's) brings the read models up to the request.
    readModelsAt: awaitProjector(readModels),
    clock: systemClock,
    random: cryptoRandom,
    // Rest as long as each window took: a scan of millions leaves half its core to the live traffic.
    restShare: 1,
  });
  return new ErasureRunnerLifecycle(new ErasureRunner(store, job));
}

/** A worker's or a thread's lines, written by the service's logger under `context`. */
function childLog(logger: Logger, context: string): ThreadLogger {
  const child = logger.child({ context });
  return {
    info: (fields, message) => child.info(fields, message),
    warn: (fields, message) => child.warn(fields, message),
    error: (fields, message) => child.error(fields, message),
  };
}

/** The graph, registered with Nest: the Kafka handler's use case, and the lifecycle hooks. */
export function dispatcherProviders(graph: DispatcherGraph): Provider[] {
  const { deliveries } = graph;
  const transport: Provider[] =
    deliveries.kind === 'kafka'
      ? [{ provide: NOTIFIED_DISPATCH, useValue: deliveries.dispatch } satisfies ValueProvider<NotifiedDispatch>]
      : [provideValue(DispatchWorkerLifecycle, deliveries.worker)];
  return [
    provideValue(StoreFollowersLifecycle, graph.followers),
    provideValue(ReleaseDrainLifecycle, graph.releases),
    provideValue(PayloadSweepLifecycle, graph.payloadSweep),
    provideValue(ErasureRunnerLifecycle, graph.erasures),
    ...transport,
  ];
}
