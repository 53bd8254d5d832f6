import { type DynamicModule, Module } from '@nestjs/common';
import { OperationsModule } from '@wts/observability';
import { EventStoreModule, readinessChecks } from '@wts/platform';
import { DeliveryAcceptedController } from './delivery-accepted.controller';
import { composeDispatcher, dispatcherProviders, type DispatcherDependencies } from './dispatcher.composition';

/**
 * The run-dispatcher: accepted deliveries in, exactly one run each out. Embedded default: a store
 * subscription (StoreDispatchWorker). With KAFKA_BROKERS: the DeliveryAccepted handler of the
 * Kafka transport strategy (main.ts) and the relay of run events to routines.runs.v1. Either way
 * it also projects the read models (deliveries, runs, parks) the ingress lists: off the ingress's
 * request path. The relay and the projector run on a thread of their own (store-followers.thread).
 */
@Module({})
export class DispatcherModule {
  static forRoot(deps: DispatcherDependencies): DynamicModule {
    const kafka = deps.config.kafka;
    return {
      module: DispatcherModule,
      // The event store closes after everything of this module stopped (EventStoreModule).
      imports: [EventStoreModule.forRoot(deps.store), OperationsModule.forRoot(readinessChecks({ ...deps, service: 'run-dispatcher' }))],
      controllers: kafka ? [DeliveryAcceptedController] : [],
      providers: dispatcherProviders(composeDispatcher(deps)),
    };
  }
}
