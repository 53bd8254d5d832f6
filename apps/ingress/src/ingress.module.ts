import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { Relays, kafkaRelayProviders } from '@wts/messaging';
import { OperationsModule } from '@wts/observability';
import { EventStoreModule, readinessChecks } from '@wts/platform';
import { AccountsController } from './admin/accounts.controller';
import { ApiKeysController } from './admin/api-keys.controller';
import { AuditController } from './admin/audit.controller';
import { ErasuresController } from './admin/erasures.controller';
import { MeController } from './admin/me.controller';
import { ParkedController } from './admin/parked.controller';
import { RoutineListController } from './admin/routine-list.controller';
import { RoutineWebhookController } from './admin/routine-webhook.controller';
import { RoutinesController } from './admin/routines.controller';
import { RunsController } from './admin/runs.controller';
import { WebhookActivityController } from './admin/webhook-activity.controller';
import { ingressProviders, type IngressDependencies, type IngressGraph } from './ingress.composition';
import { UiController } from './ui/ui.controller';

@Module({})
export class IngressModule {
  /** `graph` is composeIngress(deps): built by the caller, which also serves its public endpoint. */
  static forRoot(deps: IngressDependencies, graph: IngressGraph): DynamicModule {
    return {
      module: IngressModule,
      // The event store closes after everything of this module stopped (EventStoreModule).
      imports: [
        EventStoreModule.forRoot(deps.store),
        ...(deps.operationsElsewhere ? [] : [OperationsModule.forRoot(readinessChecks({ ...deps, service: 'ingress' }))]),
      ],
      controllers: [
        AccountsController,
        RoutineListController,
        RoutinesController,
        RoutineWebhookController,
        WebhookActivityController,
        ParkedController,
        RunsController,
        ApiKeysController,
        AuditController,
        ErasuresController,
        MeController,
        UiController,
      ],
      providers: [...ingressProviders(graph), ...kafkaRelay(deps)],
    };
  }
}

/** With KAFKA_BROKERS: webhook lifecycle and accepted deliveries are relayed to webhooks.events.v1. */
function kafkaRelay(deps: IngressDependencies): Provider[] {
  const connection = deps.config.kafka;
  if (!connection) return [];
  if (!deps.checkpoints) throw new Error('KAFKA_BROKERS is set but the ingress was given no checkpoint store for its relay');
  return kafkaRelayProviders({
    connection,
    definition: Relays.ingressWebhooks,
    store: deps.store,
    checkpoints: deps.checkpoints,
    // Its topic carries no payload (DeliveryAccepted v2): the limit is passed for any topic that would.
    payloadRetentionSeconds: deps.config.limits.payloadRetentionSeconds,
  });
}
