import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DispatchDeliveryUseCase, DispatchNotifiedDeliveryUseCase, EVENT_STORE, ParkDispatchUseCase, READ_MODELS, ReadModelProjector, StoreDispatchWorker, systemClock } from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { Relays, kafkaRelayProviders, type KafkaConnection } from '@wts/messaging';
import { OperationsModule, metrics } from '@wts/observability';
import { APP_CONFIG, readinessChecks } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import type { Logger } from 'pino';
import { DeliveryAcceptedController } from './delivery-accepted.controller';
import { countDispatch } from './dispatch.metrics';
import { projectorProgress } from './projector.metrics';
import { TracedDispatchDeliveryUseCase } from './traced-dispatch.usecase';
import { DispatchWorkerLifecycle } from './dispatch-worker.lifecycle';
import { EventStoreLifecycle } from './event-store.lifecycle';
import { ProjectorLifecycle } from './projector.lifecycle';

export interface DispatcherDependencies {
  readonly config: AppConfig;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  /** The service's pino logger (main.ts makes it Nest's logger too). */
  readonly logger: Logger;
  /** The read-model database this service's projector writes (the ingress lists from it). */
  readonly readModels: ReadModelStore;
}

/**
 * The run-dispatcher: accepted deliveries in, exactly one run each out. Embedded default: a store
 * subscription (StoreDispatchWorker). With KAFKA_BROKERS: the DeliveryAccepted handler of the
 * Kafka transport strategy (main.ts) and the relay of run events to routines.runs.v1. Either way
 * it also projects the read models (deliveries, runs, parks) the ingress lists: off the
 * ingress's request path.
 */
@Module({})
export class DispatcherModule {
  static forRoot(deps: DispatcherDependencies): DynamicModule {
    const kafka = deps.config.kafka;
    return {
      module: DispatcherModule,
      imports: [OperationsModule.forRoot(readinessChecks({ ...deps, service: 'run-dispatcher' }))],
      controllers: kafka ? [DeliveryAcceptedController] : [],
      providers: [
        { provide: APP_CONFIG, useValue: deps.config },
        { provide: EVENT_STORE, useValue: deps.store },
        { provide: DispatchDeliveryUseCase, useValue: new TracedDispatchDeliveryUseCase(deps.store, systemClock) },
        { provide: READ_MODELS, useValue: deps.readModels },
        {
          provide: ReadModelProjector,
          useFactory: () => {
            const logger = deps.logger.child({ context: 'ReadModelProjector' });
            const projector = new ReadModelProjector(deps.store, deps.readModels, { info: (fields, message) => logger.info(fields, message), error: (fields, message) => logger.error(fields, message) });
            metrics.trackProjector(projectorProgress(deps.store, projector));
            return projector;
          },
        },
        ProjectorLifecycle,
        ...(kafka ? kafkaProviders(deps, kafka) : embeddedProviders(deps)),
      ],
    };
  }
}

function kafkaProviders(deps: DispatcherDependencies, connection: KafkaConnection): Provider[] {
  return [
    // The message names a delivery; the run is made from what the store holds for it.
    {
      provide: DispatchNotifiedDeliveryUseCase,
      inject: [DispatchDeliveryUseCase],
      useFactory: (dispatch: DispatchDeliveryUseCase) => new DispatchNotifiedDeliveryUseCase(deps.store, dispatch, systemClock),
    },
    ...kafkaRelayProviders({ connection, definition: Relays.dispatcherRuns, store: deps.store, checkpoints: deps.checkpoints }),
    EventStoreLifecycle,
  ];
}

function embeddedProviders(deps: DispatcherDependencies): Provider[] {
  return [
    {
      provide: StoreDispatchWorker,
      inject: [DispatchDeliveryUseCase],
      useFactory: (dispatch: DispatchDeliveryUseCase) => {
        const logger = deps.logger.child({ context: 'StoreDispatchWorker' });
        return new StoreDispatchWorker({
          store: deps.store,
          checkpoints: deps.checkpoints,
          dispatch,
          park: new ParkDispatchUseCase(deps.store, systemClock),
          logger: { info: (fields, message) => logger.info(fields, message), error: (fields, message) => logger.error(fields, message) },
          onDispatched: countDispatch,
        });
      },
    },
    DispatchWorkerLifecycle,
  ];
}
