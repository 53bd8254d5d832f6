/** The PostgreSQL read-model specs' stores: opened on the test database, closed after each test. */
import type { ReadModelStore } from '../../libs/read-models/src/read-model.port';
import { PostgresReadModelStore, type PostgresReadModelStoreOptions } from '../../libs/read-models/src/postgres/postgres-read-model.store';
import { DATABASE_URL } from '../../libs/read-models/src/postgres/testing/postgres-read-model.fixtures';

/**
 * Opens stores on the test database (a pool of 4, `defaults` and then `options` over that) and
 * closes every one opened after each test. Call it where the spec's tests are registered.
 */
export function useOpenedPostgresStores(
  defaults: Partial<PostgresReadModelStoreOptions> = {},
): (options?: Partial<PostgresReadModelStoreOptions>) => Promise<PostgresReadModelStore> {
  const opened: ReadModelStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  return async (options = {}) => {
    const store = await PostgresReadModelStore.open({ connectionString: DATABASE_URL, poolSize: 4, ...defaults, ...options });
    opened.push(store);
    return store;
  };
}
