export * from './event-store.port';
export * from './event-store.errors';
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store.adapter';
export { SqliteCheckpointStore } from './sqlite/sqlite-checkpoint.store';
export {
  EventStoreDbEventStore,
  type EventStoreDbEventStoreOptions,
} from './eventstoredb/eventstoredb-event-store.adapter';
export { EventStoreDbCheckpointStore } from './eventstoredb/eventstoredb-checkpoint.store';
export { describeEventStoreDbConnection } from './eventstoredb/eventstoredb-connection.description';
export { workerThreadScript } from './worker-thread.script';
export { WorkerThreadChannel, type WorkerThreadChannelOptions } from './worker-thread.channel';
