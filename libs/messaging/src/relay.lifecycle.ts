import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type Provider } from '@nestjs/common';
import { nestMessagingLogger } from './kafka-client.factory';
import { KafkaRelaySupervisor, type KafkaRelaySettings } from './kafka-relay.supervisor';

export const KAFKA_RELAY = Symbol('KafkaRelay');
export const KAFKA_RELAY_REFUSED = Symbol('KafkaRelayRefused');

/** What the service does when its relay refuses to start (a topic that keeps payloads too long). */
export type RelayRefusal = (error: unknown) => void;

/** The default: the reason on stderr, and the process exits 1 (nothing was relayed yet). */
export const exitOnRelayRefusal: RelayRefusal = (error) => {
  process.stderr.write(`refusing to run: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
};

/**
 * Starts the relay once the app is up (in the background: the service never waits for Kafka) and
 * stops it first on shutdown (module destroy runs before anything closes the event store).
 */
@Injectable()
export class RelayLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(KAFKA_RELAY) private readonly relay: KafkaRelaySupervisor,
    @Inject(KAFKA_RELAY_REFUSED) private readonly refused: RelayRefusal,
  ) {}

  onApplicationBootstrap(): void {
    this.relay.start().catch(this.refused);
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }
}

/** The providers a service module adds to run one relay. */
export function kafkaRelayProviders(settings: Omit<KafkaRelaySettings, 'logger'>, refused: RelayRefusal = exitOnRelayRefusal): Provider[] {
  return [
    {
      provide: KAFKA_RELAY,
      useFactory: () => new KafkaRelaySupervisor({ ...settings, logger: nestMessagingLogger(`relay ${settings.definition.name}`) }),
    },
    { provide: KAFKA_RELAY_REFUSED, useValue: refused },
    RelayLifecycle,
  ];
}
