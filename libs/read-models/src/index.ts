export * from './read-model.port';
export { HOURLY_RETENTION_MS, addHours, hourOf, type HourlyCount } from './hourly-activity';
export { SqliteReadModelStore, type SqliteReadModelStoreOptions } from './sqlite/sqlite-read-model.store';
export { PostgresReadModelStore, type PostgresReadModelStoreOptions } from './postgres/postgres-read-model.store';
export { deniedClassOf, type DeniedClass } from './denied-access.policy';
export {
  MAX_PAYLOAD_BATCH,
  MAX_SELECTED_DELIVERY_IDS,
  type DeliveryPayloadState,
  type ErasureCandidatePage,
  type ErasureCandidateSelection,
} from './payload-selection';
