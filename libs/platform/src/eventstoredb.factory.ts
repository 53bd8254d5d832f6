import type { OpenedStore } from './event-store.factory';

/** EventStoreDB is wired in by the production-shape work; until then the setting is refused clearly. */
export function openEventStoreDb(connectionString: string): Promise<OpenedStore> {
  void connectionString;
  return Promise.reject(new Error('EVENTSTORE_CONNECTION_STRING is set but this build has no EventStoreDB adapter yet'));
}
