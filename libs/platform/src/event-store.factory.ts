import type { AppConfig } from '@wts/config';
import { SqliteEventStore, connectEventStoreDb, describeEventStoreDbConnection } from '@wts/event-store';
import { metrics } from '@wts/observability';
import { join } from 'node:path';
import type { OpenedStore } from './opened-store.result';

export const EMBEDDED_STORE_FILE = 'events.sqlite';

/**
 * Creates the embedded store's file and schema (nothing to do for EventStoreDB). The launcher
 * calls it once before starting the services, so they never race to create it.
 */
export async function prepareEventStore(config: AppConfig): Promise<void> {
  if (config.eventStore.connectionString) return;
  await SqliteEventStore.open(join(config.storage.dataDir, EMBEDDED_STORE_FILE)).close();
}

/**
 * The embedded SQLite store under DATA_DIR unless EVENTSTORE_CONNECTION_STRING selects
 * EventStoreDB. EventStoreDB's client connects lazily: a server that is down shows up as
 * EventStoreUnavailableError (503, failing health checks), not as a crash at startup; a malformed
 * connection string is refused here. Its adapter and client load only then (connectEventStoreDb).
 */
export async function openEventStore(config: Pick<AppConfig, 'eventStore' | 'storage'>): Promise<OpenedStore> {
  const { connectionString, maxAppendBytes } = config.eventStore;
  if (connectionString) {
    const store = await connectEventStoreDb(connectionString, { maxAppendBytes });
    return { store, checkpoints: store.checkpoints(), description: `EventStoreDB at ${describeEventStoreDbConnection(connectionString)}` };
  }
  const file = join(config.storage.dataDir, EMBEDDED_STORE_FILE);
  const store = SqliteEventStore.open(file);
  // Group commit, as the writer thread reports it: appends per commit, and the commit's duration.
  store.onCommit((report) => {
    metrics.appendBatchSize.observe(report.requests);
    metrics.commitSeconds.observe(report.ms / 1000);
  });
  return { store, checkpoints: store.checkpoints(), description: `embedded SQLite store at ${file}` };
}
