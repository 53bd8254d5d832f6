import { ConfigurationError, loadConfig, type AppConfig } from '@wts/config';
import { EMBEDDED_STORE_FILE, openEventStore, type OpenedStore } from '@wts/platform';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CliContext } from './cli.context';
import { CliFailure, UsageError, describeError } from './cli.errors';

/** The services' configuration, from the same environment; a bad value is a usage error (exit 2). */
export function cliConfig(context: CliContext): AppConfig {
  try {
    return loadConfig(context.env);
  } catch (error) {
    if (error instanceof ConfigurationError) throw new UsageError(error.problems, 'invalid configuration');
    throw error;
  }
}

export interface StoreSession extends OpenedStore {
  readonly config: AppConfig;
}

/**
 * Opens the store the services use (embedded SQLite under DATA_DIR, or EventStoreDB), runs
 * `work`, and closes it. The embedded store must exist already: an operator tool never creates an
 * empty store in the wrong directory.
 */
export async function withStore<T>(context: CliContext, work: (session: StoreSession) => Promise<T>): Promise<T> {
  const config = cliConfig(context);
  if (!config.eventStore.connectionString) {
    const file = join(config.storage.dataDir, EMBEDDED_STORE_FILE);
    if (!existsSync(file))
      throw new CliFailure(`no event store at ${file} (set DATA_DIR, or EVENTSTORE_CONNECTION_STRING for EventStoreDB)`);
  }
  let opened: OpenedStore;
  try {
    opened = await openEventStore(config);
  } catch (error) {
    throw new CliFailure(`cannot open the event store: ${describeError(error)}`, { cause: error });
  }
  try {
    return await work({ ...opened, config });
  } finally {
    await opened.store.close().catch(() => undefined);
  }
}
