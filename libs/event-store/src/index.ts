export * from './event-store.port';
export * from './payload-store.port';
export * from './event-store.errors';
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store.adapter';
export { SqliteCheckpointStore } from './sqlite/sqlite-checkpoint.store';
// Types only: the adapter loads @eventstore/db-client, which the embedded default never needs (connectEventStoreDb loads it).
export type { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store.adapter';
export type { EventStoreDbEventStoreOptions } from './eventstoredb/eventstoredb-event-store.options';
export type { EventStoreDbCheckpointStore } from './eventstoredb/eventstoredb-checkpoint.store';
export { connectEventStoreDb } from './eventstoredb/eventstoredb.factory';
export { describeEventStoreDbConnection } from './eventstoredb/eventstoredb-connection.format';
export { workerThreadScript } from './worker-thread.script';
export { WorkerThreadChannel, type WorkerThreadChannelOptions } from './worker-thread.channel';
export {
  OPEN_TO_OTHERS,
  PRIVATE_DIRECTORY_MODE,
  PRIVATE_FILE_MODE,
  ensurePrivateDirectory,
  ensurePrivateFile,
  openPrivateFile,
  octalMode,
} from './private-file';
