import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type Provider } from '@nestjs/common';
import { nestMessagingLogger } from './kafka-client.factory';
import { KafkaRelaySupervisor, type KafkaRelaySettings } from './kafka-relay.supervisor';

export const KAFKA_RELAY = Symbol('KafkaRelay');

/**
 * Starts the relay once the app is up (in the background: the service never waits for Kafka) and
 * stops it first on shutdown (module destroy runs before anything closes the event store).
 */
@Injectable()
export class RelayLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(@Inject(KAFKA_RELAY) private readonly relay: KafkaRelaySupervisor) {}

  onApplicationBootstrap(): void {
    void this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }
}

/** The providers a service module adds to run one relay. */
export function kafkaRelayProviders(settings: Omit<KafkaRelaySettings, 'logger'>): Provider[] {
  return [
    {
      provide: KAFKA_RELAY,
      useFactory: () => new KafkaRelaySupervisor({ ...settings, logger: nestMessagingLogger(`relay ${settings.definition.name}`) }),
    },
    RelayLifecycle,
  ];
}
