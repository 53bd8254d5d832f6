import { EventStoreUnavailableError } from '../event-store.port';
import { ensurePrivateFile } from '../private-file';
import { SqliteFileConnection, isBusyFailure, openSqliteFile, type SqliteDatabase, type SqliteFileStore } from './sqlite-file.connection';
import { assertCurrentSchema, migrate } from './sqlite-schema.migrations';

export type { SqliteDatabase } from './sqlite-file.connection';

export interface SqliteConnectionOptions {
  /** How long a writer waits for another connection's (or process's) write lock. */
  readonly busyTimeoutMs: number;
  /**
   * A second connection of a process that has opened the file already (the writer thread): no
   * WAL switch and no migration, which would take the write lock; the schema must be current.
   */
  readonly alreadyPrepared?: boolean;
  /**
   * SQLite's own busy_timeout for this handle when it differs from busyTimeoutMs: the writer thread
   * sets 0 and retries a busy BEGIN itself, at a finer grain than SQLite's busy handler (which
   * sleeps 1, 2, 5, 10, 15, 20, 25 … ms between tries, the tail of every commit that meets another
   * process's).
   */
  readonly sqliteBusyTimeoutMs?: number;
}

const EVENT_STORE: SqliteFileStore = { name: 'event store', Unavailable: EventStoreUnavailableError };

/**
 * One better-sqlite3 handle with the pragmas the store relies on, and the one place where
 * SQLite failures become EventStoreUnavailableError.
 */
export class SqliteConnection extends SqliteFileConnection {
  private constructor(
    db: SqliteDatabase,
    readonly filePath: string,
  ) {
    super(db, EVENT_STORE);
  }

  /**
   * Opens the file, switching it to WAL and bringing the schema up to date; the open is retried
   * while another process switches the same new file (openSqliteFile) until busyTimeoutMs.
   */
  static open(filePath: string, options: SqliteConnectionOptions): SqliteConnection {
    const opening = {
      retryForMs: options.busyTimeoutMs,
      busyTimeoutMs: options.sqliteBusyTimeoutMs ?? options.busyTimeoutMs,
      walAlready: options.alreadyPrepared,
      // Owner-only, made before SQLite opens it: its -wal and -shm files take its mode.
      beforeOpen: () => ensurePrivateFile(filePath),
      prepare: (db: SqliteDatabase) => {
        // FULL: the WAL is fsynced on every commit, so a resolved append survives a power cut.
        db.pragma('synchronous = FULL');
        // A removed payload must leave no byte behind: freed pages (a dropped bucket table) are
        // zeroed, and sorts or temporary b-trees never spill a body into a temporary file.
        db.pragma('secure_delete = ON');
        db.pragma('temp_store = MEMORY');
        if (options.alreadyPrepared) assertCurrentSchema(db);
        else migrate(db);
      },
    };
    return openSqliteFile(filePath, EVENT_STORE, opening, (db) => new SqliteConnection(db, filePath));
  }
}

/** SQLITE_BUSY (any extended code), raw or as the cause of an EventStoreUnavailableError. */
export function isBusy(error: unknown): boolean {
  return isBusyFailure(error, EventStoreUnavailableError);
}
