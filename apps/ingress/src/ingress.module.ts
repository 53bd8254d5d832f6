import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { CLOCK, EVENT_STORE, RANDOM, RATE_LIMITER, READ_MODELS, cryptoRandom, systemClock, type RateLimiter } from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { Relays, kafkaRelayProviders } from '@wts/messaging';
import { OperationsModule } from '@wts/observability';
import { APP_CONFIG, readinessChecks } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import { AccountsController } from './admin/accounts.controller';
import { ADMIN_TOKEN_DIGEST, AdminTokenGuard, adminTokenDigest } from './admin/admin-token.guard';
import { ParkedController } from './admin/parked.controller';
import { RoutineListController } from './admin/routine-list.controller';
import { RoutineWebhookController } from './admin/routine-webhook.controller';
import { RoutinesController } from './admin/routines.controller';
import { RunsController } from './admin/runs.controller';
import { WebhookActivityController } from './admin/webhook-activity.controller';
import { useCaseProviders } from './ingress.providers';
import { RateLimiterLifecycle } from './rate-limiter.lifecycle';
import { ReadModelLifecycle } from './read-model.lifecycle';
import { UiController } from './ui/ui.controller';

export interface IngressDependencies {
  readonly config: AppConfig;
  readonly adminToken: string;
  readonly store: EventStore;
  /** Listings (deliveries, runs, parked, rejected attempts): SQLite beside the store, or PostgreSQL. */
  readonly readModels: ReadModelStore;
  /** With REDIS_URL, `ping` is its readiness check. */
  readonly rateLimiter: RateLimiter & { readonly ping?: () => Promise<void> };
  /** Needed when KAFKA_BROKERS is set: the relay's durable checkpoint. */
  readonly checkpoints?: CheckpointStore;
  /** Health and metrics are served by a listener of their own (OPS_PORT): this app leaves them out. */
  readonly operationsElsewhere?: boolean;
}

@Module({})
export class IngressModule {
  static forRoot(deps: IngressDependencies): DynamicModule {
    return {
      module: IngressModule,
      imports: deps.operationsElsewhere ? [] : [OperationsModule.forRoot(readinessChecks({ ...deps, service: 'ingress' }))],
      controllers: [
        AccountsController,
        RoutineListController,
        RoutinesController,
        RoutineWebhookController,
        WebhookActivityController,
        ParkedController,
        RunsController,
        UiController,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: deps.config },
        { provide: EVENT_STORE, useValue: deps.store },
        { provide: READ_MODELS, useValue: deps.readModels },
        { provide: RATE_LIMITER, useValue: deps.rateLimiter },
        { provide: CLOCK, useValue: systemClock },
        { provide: RANDOM, useValue: cryptoRandom },
        { provide: ADMIN_TOKEN_DIGEST, useValue: adminTokenDigest(deps.adminToken) },
        AdminTokenGuard,
        ReadModelLifecycle,
        RateLimiterLifecycle,
        ...useCaseProviders,
        ...kafkaRelay(deps),
      ],
    };
  }
}

/** With KAFKA_BROKERS: webhook lifecycle and accepted deliveries are relayed to webhooks.events.v1. */
function kafkaRelay(deps: IngressDependencies): Provider[] {
  const connection = deps.config.kafka;
  if (!connection) return [];
  if (!deps.checkpoints) throw new Error('KAFKA_BROKERS is set but the ingress was given no checkpoint store for its relay');
  return kafkaRelayProviders({ connection, definition: Relays.ingressWebhooks, store: deps.store, checkpoints: deps.checkpoints });
}
