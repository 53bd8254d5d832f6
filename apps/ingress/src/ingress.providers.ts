import { Logger, type Provider } from '@nestjs/common';
import {
  AccountsUseCase,
  CLOCK,
  EVENT_STORE,
  RANDOM,
  RATE_LIMITER,
  ReadModelFeeder,
  WebhookActivityLog,
  RoutinesUseCase,
  RunQueriesUseCase,
  ServiceReadModel,
  TriggerWebhookUseCase,
  UseCaseContext,
  WebhookAdminUseCase,
  type Clock,
  type RandomSource,
  type RateLimiter,
} from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { EventStore } from '@wts/event-store';
import { APP_CONFIG } from '@wts/platform';

const factory = <T>(provide: abstract new (...args: never[]) => T, inject: unknown[], useFactory: (...deps: never[]) => T): Provider => ({
  provide,
  inject: inject as never[],
  useFactory,
});

/** The use cases, built from the ports: one place that knows the constructors. */
export const useCaseProviders: Provider[] = [
  // Factories, not values: every app instance (and every test app in one process) owns its own.
  { provide: ServiceReadModel, useFactory: () => new ServiceReadModel() },
  { provide: WebhookActivityLog, useFactory: () => new WebhookActivityLog() },
  factory(UseCaseContext, [EVENT_STORE, ServiceReadModel, CLOCK, RANDOM, ReadModelFeeder], (store: EventStore, model: ServiceReadModel, clock: Clock, random: RandomSource, feeder: ReadModelFeeder) =>
    new UseCaseContext(store, model, clock, random, feeder),
  ),
  factory(AccountsUseCase, [UseCaseContext], (context: UseCaseContext) => new AccountsUseCase(context)),
  factory(RoutinesUseCase, [UseCaseContext], (context: UseCaseContext) => new RoutinesUseCase(context)),
  factory(WebhookAdminUseCase, [UseCaseContext, APP_CONFIG], (context: UseCaseContext, config: AppConfig) =>
    new WebhookAdminUseCase(context, config.http.publicBaseUrl),
  ),
  factory(RunQueriesUseCase, [EVENT_STORE, ServiceReadModel], (store: EventStore, model: ServiceReadModel) => new RunQueriesUseCase(store, model)),
  factory(
    TriggerWebhookUseCase,
    [EVENT_STORE, ServiceReadModel, ReadModelFeeder, RATE_LIMITER, WebhookActivityLog, CLOCK, RANDOM, APP_CONFIG],
    (store: EventStore, model: ServiceReadModel, feeder: ReadModelFeeder, limiter: RateLimiter, attempts: WebhookActivityLog, clock: Clock, random: RandomSource, config: AppConfig) =>
      new TriggerWebhookUseCase(store, model, feeder, limiter, attempts, clock, random, config.limits),
  ),
  factory(ReadModelFeeder, [EVENT_STORE, ServiceReadModel], (store: EventStore, model: ServiceReadModel) =>
    new ReadModelFeeder(store, model, (error) => new Logger('ReadModel').error({ err: error }, 'read model subscription failed; resubscribing')),
  ),
];
