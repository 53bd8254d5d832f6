import { connectEventStoreDb, describeEventStoreDbConnection } from '@wts/event-store';
import type { OpenedStore } from './opened-store.result';

/**
 * EventStoreDB, selected by EVENTSTORE_CONNECTION_STRING. The client connects lazily: a server that
 * is down shows up as EventStoreUnavailableError (503, failing health checks), not as a crash at
 * startup. A malformed connection string is refused here.
 */
export async function openEventStoreDb(connectionString: string, maxAppendBytes: number): Promise<OpenedStore> {
  const store = await connectEventStoreDb(connectionString, { maxAppendBytes });
  return {
    store,
    checkpoints: store.checkpoints(),
    description: `EventStoreDB at ${describeEventStoreDbConnection(connectionString)}`,
  };
}
