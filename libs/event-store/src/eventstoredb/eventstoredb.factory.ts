import type { EventStoreDbEventStore } from './eventstoredb-event-store.adapter';
import type { EventStoreDbEventStoreOptions } from './eventstoredb-event-store.options';

/**
 * EventStoreDbEventStore.connect, with the adapter (and @eventstore/db-client, a third of a second
 * of start-up) loaded only when EventStoreDB is chosen: the package index names this function, not
 * the adapter, so the embedded default never loads the client.
 */
export async function connectEventStoreDb(
  connectionString: string,
  options: EventStoreDbEventStoreOptions,
): Promise<EventStoreDbEventStore> {
  const { EventStoreDbEventStore: Adapter } = await import('./eventstoredb-event-store.adapter');
  return Adapter.connect(connectionString, options);
}
