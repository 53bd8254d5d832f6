import { Logger, type Provider } from '@nestjs/common';
import {
  AccountsService,
  BatchedActivityRecorder,
  CLOCK,
  ConfigurationFeeder,
  ConfigurationState,
  EVENT_STORE,
  RANDOM,
  RATE_LIMITER,
  READ_MODELS,
  RoutinesService,
  RunQueries,
  TriggerWebhookUseCase,
  UseCaseContext,
  WebhookActivityQueries,
  WebhookAdminService,
  type Clock,
  type RandomSource,
  type RateLimiter,
} from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { EventStore } from '@wts/event-store';
import { APP_CONFIG, maxEventBytes } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';

const factory = <T>(provide: abstract new (...args: never[]) => T, inject: unknown[], useFactory: (...deps: never[]) => T): Provider => ({
  provide,
  inject: inject as never[],
  useFactory,
});

/** The use cases, built from the ports: one place that knows the constructors. */
export const useCaseProviders: Provider[] = [
  // Factories, not values: every app instance (and every test app in one process) owns its own.
  { provide: ConfigurationState, useFactory: () => new ConfigurationState() },
  factory(ConfigurationFeeder, [EVENT_STORE, ConfigurationState], (store: EventStore, state: ConfigurationState) =>
    new ConfigurationFeeder(store, state, (error) => new Logger('Configuration').error({ err: error }, 'configuration subscription failed; resubscribing')),
  ),
  factory(BatchedActivityRecorder, [READ_MODELS], (readModels: ReadModelStore) =>
    new BatchedActivityRecorder(readModels, (error, dropped) =>
      new Logger('WebhookActivity').error({ err: error, dropped }, 'rejected attempts and replays could not be written; kept for a retry'),
    ),
  ),
  factory(UseCaseContext, [EVENT_STORE, ConfigurationState, CLOCK, RANDOM, ConfigurationFeeder], (store: EventStore, state: ConfigurationState, clock: Clock, random: RandomSource, feeder: ConfigurationFeeder) =>
    new UseCaseContext(store, state, clock, random, feeder),
  ),
  factory(AccountsService, [UseCaseContext], (context: UseCaseContext) => new AccountsService(context)),
  factory(RoutinesService, [UseCaseContext], (context: UseCaseContext) => new RoutinesService(context)),
  factory(WebhookAdminService, [UseCaseContext, APP_CONFIG], (context: UseCaseContext, config: AppConfig) =>
    new WebhookAdminService(context, config.http.publicBaseUrl),
  ),
  factory(RunQueries, [EVENT_STORE, ConfigurationState, ConfigurationFeeder, READ_MODELS], (store: EventStore, state: ConfigurationState, feeder: ConfigurationFeeder, readModels: ReadModelStore) =>
    new RunQueries(store, state, feeder, readModels),
  ),
  factory(WebhookActivityQueries, [ConfigurationState, ConfigurationFeeder, READ_MODELS, BatchedActivityRecorder], (state: ConfigurationState, feeder: ConfigurationFeeder, readModels: ReadModelStore, recorder: BatchedActivityRecorder) =>
    new WebhookActivityQueries(state, feeder, readModels, recorder),
  ),
  factory(
    TriggerWebhookUseCase,
    [UseCaseContext, RATE_LIMITER, BatchedActivityRecorder, APP_CONFIG],
    (context: UseCaseContext, rateLimiter: RateLimiter, activity: BatchedActivityRecorder, config: AppConfig) =>
      new TriggerWebhookUseCase({ context, rateLimiter, activity, limits: { ...config.limits, maxEventBytes: maxEventBytes(config, context.store) } }),
  ),
];
