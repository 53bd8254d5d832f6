import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DispatchDeliveryUseCase, EVENT_STORE, StoreDispatchWorker, systemClock } from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { Relays, kafkaRelayProviders } from '@wts/messaging';
import { APP_CONFIG, loggerParams } from '@wts/platform';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { DeliveryAcceptedController } from './delivery-accepted.controller';
import { DispatchWorkerLifecycle } from './dispatch-worker.lifecycle';
import { EventStoreLifecycle } from './event-store.lifecycle';

export interface DispatcherDependencies {
  readonly config: AppConfig;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
}

/**
 * The run-dispatcher: accepted deliveries in, exactly one run each out. Embedded default: a store
 * subscription (StoreDispatchWorker). With KAFKA_BROKERS: the DeliveryAccepted handler of the
 * Kafka transport strategy (main.ts) and the relay of run events to routines.runs.v1.
 */
@Module({})
export class DispatcherModule {
  static forRoot(deps: DispatcherDependencies): DynamicModule {
    const brokers = deps.config.kafka.brokers;
    return {
      module: DispatcherModule,
      imports: [LoggerModule.forRoot(loggerParams(deps.config.log, 'run-dispatcher'))],
      controllers: brokers ? [DeliveryAcceptedController] : [],
      providers: [
        { provide: APP_CONFIG, useValue: deps.config },
        { provide: EVENT_STORE, useValue: deps.store },
        { provide: DispatchDeliveryUseCase, useValue: new DispatchDeliveryUseCase(deps.store, systemClock) },
        ...(brokers ? kafkaProviders(deps, brokers) : embeddedProviders(deps)),
      ],
    };
  }
}

function kafkaProviders(deps: DispatcherDependencies, brokers: readonly string[]): Provider[] {
  return [
    ...kafkaRelayProviders({ brokers, definition: Relays.dispatcherRuns, store: deps.store, checkpoints: deps.checkpoints }),
    EventStoreLifecycle,
  ];
}

function embeddedProviders(deps: DispatcherDependencies): Provider[] {
  return [
    {
      provide: StoreDispatchWorker,
      inject: [DispatchDeliveryUseCase, PinoLogger],
      useFactory: (dispatch: DispatchDeliveryUseCase, logger: PinoLogger) =>
        new StoreDispatchWorker(deps.store, deps.checkpoints, dispatch, {
          info: (fields, message) => logger.info(fields, message),
          error: (fields, message) => logger.error(fields, message),
        }),
    },
    DispatchWorkerLifecycle,
  ];
}
