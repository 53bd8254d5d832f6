export * from './event-store.port';
export * from './event-store.errors';
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store.adapter';
export { SqliteCheckpointStore } from './sqlite/sqlite-checkpoint.store';
