import type { AppConfig } from '@wts/config';
import { PostgresReadModelStore, SqliteReadModelStore, type ReadModelStore } from '@wts/read-models';
import { join } from 'node:path';

export const EMBEDDED_READ_MODEL_FILE = 'readmodels.sqlite';

export interface OpenedReadModels {
  readonly readModels: ReadModelStore;
  readonly description: string;
}

export interface ReadModelOpenOptions {
  /** The ingress: rejected attempts and replay counts written off the event loop (SQLite: a thread of their own). */
  readonly activityOffThread?: boolean;
}

/** PostgreSQL when DATABASE_URL is set; otherwise SQLite beside the embedded event store. */
export async function openReadModelStore(
  config: Pick<AppConfig, 'database' | 'storage'>,
  options: ReadModelOpenOptions = {},
): Promise<OpenedReadModels> {
  if (config.database.url) {
    const readModels = await PostgresReadModelStore.open({ connectionString: config.database.url });
    return { readModels, description: `PostgreSQL read models at ${describeDatabaseUrl(config.database.url)}` };
  }
  const file = join(config.storage.dataDir, EMBEDDED_READ_MODEL_FILE);
  return {
    readModels: SqliteReadModelStore.open(file, { activityOffThread: options.activityOffThread === true }),
    description: `SQLite read models at ${file}`,
  };
}

/** host:port/database, never the user or the password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}
