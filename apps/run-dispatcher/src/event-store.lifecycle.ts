import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE } from '@wts/application';
import type { EventStore } from '@wts/event-store';

/** With Kafka, nothing else owns the store: closed last, after the consumer and the relay stopped. */
@Injectable()
export class EventStoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
