import type { OnApplicationShutdown } from '@nestjs/common';
import type { EventStore } from '@wts/event-store';

/**
 * The one place a service closes its event store, on shutdown. Registered by EventStoreModule,
 * which the service's module imports: Nest shuts the importing module down first, so whatever
 * uses the store there (requests, consumer, worker, projector, configuration feeder) has stopped
 * before the store closes.
 */
export class EventStoreLifecycle implements OnApplicationShutdown {
  constructor(private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
