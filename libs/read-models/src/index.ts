export * from './read-model.port';
export { SqliteReadModelStore, type SqliteReadModelStoreOptions } from './sqlite/sqlite-read-model.store';
export { PostgresReadModelStore, type PostgresReadModelStoreOptions } from './postgres/postgres-read-model.store';
export { deniedClassOf, type DeniedClass } from './denied-access.retention';
