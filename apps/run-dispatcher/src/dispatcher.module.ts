import { type DynamicModule, Module } from '@nestjs/common';
import { DispatchDeliveryUseCase, EVENT_STORE, StoreDispatchWorker, systemClock } from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { APP_CONFIG, loggerParams } from '@wts/platform';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { DispatchWorkerLifecycle } from './dispatch-worker.lifecycle';

export interface DispatcherDependencies {
  readonly config: AppConfig;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
}

/** The run-dispatcher: accepted deliveries in, exactly one run each out. */
@Module({})
export class DispatcherModule {
  static forRoot(deps: DispatcherDependencies): DynamicModule {
    return {
      module: DispatcherModule,
      imports: [LoggerModule.forRoot(loggerParams(deps.config.log.level, 'run-dispatcher'))],
      providers: [
        { provide: APP_CONFIG, useValue: deps.config },
        { provide: EVENT_STORE, useValue: deps.store },
        { provide: DispatchDeliveryUseCase, useValue: new DispatchDeliveryUseCase(deps.store, systemClock) },
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
      ],
    };
  }
}
