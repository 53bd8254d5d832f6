import { type DynamicModule, Module } from '@nestjs/common';
import type { EventStore } from '@wts/event-store';
import { EventStoreLifecycle } from './event-store.lifecycle';
import { provideValue } from './value.provider';

/**
 * Closes the service's event store last. A module of its own on purpose: Nest runs the shutdown
 * hooks of the importing (service) module before those of the modules it imports, and the hooks
 * of one module all at once; only a module boundary orders "everything else, then the store".
 */
@Module({})
export class EventStoreModule {
  static forRoot(store: EventStore): DynamicModule {
    return { module: EventStoreModule, providers: [provideValue(EventStoreLifecycle, new EventStoreLifecycle(store))] };
  }
}
