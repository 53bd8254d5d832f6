import Database from 'better-sqlite3';
import { EventStoreUnavailableError } from '../event-store.port';
import { ensurePrivateFile } from '../private-file';
import { assertCurrentSchema, migrate } from './sqlite-schema.migrations';

export type SqliteDatabase = Database.Database;

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

/**
 * One better-sqlite3 handle with the pragmas the store relies on, and the one place where
 * SQLite failures become EventStoreUnavailableError.
 */
export class SqliteConnection {
  private closed = false;

  private constructor(
    private readonly db: SqliteDatabase,
    readonly filePath: string,
  ) {}

  /**
   * Opens the file, switching it to WAL and bringing the schema up to date. Processes opening a new
   * file at the same moment race for the WAL switch, where SQLite answers SQLITE_BUSY without
   * calling the busy handler: the whole open is retried (it is idempotent) until busyTimeoutMs.
   */
  static open(filePath: string, options: SqliteConnectionOptions): SqliteConnection {
    const deadline = Date.now() + options.busyTimeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return SqliteConnection.openOnce(filePath, options);
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
        sleepSync(Math.min(5 * 2 ** attempt, 100));
      }
    }
  }

  private static openOnce(filePath: string, options: SqliteConnectionOptions): SqliteConnection {
    const inMemory = filePath === ':memory:';
    let db: SqliteDatabase | undefined;
    try {
      // Owner-only, made before SQLite opens it: its -wal and -shm files take its mode.
      if (!inMemory) ensurePrivateFile(filePath);
      // `timeout` is SQLite's busy_timeout: concurrent writers (other processes) wait instead of failing.
      db = new Database(filePath, { timeout: options.sqliteBusyTimeoutMs ?? options.busyTimeoutMs });
      db.defaultSafeIntegers(true);
      const journalMode = db.pragma(options.alreadyPrepared ? 'journal_mode' : 'journal_mode = WAL', { simple: true });
      if (!inMemory && journalMode !== 'wal') {
        throw new Error(`could not switch ${filePath} to WAL mode (journal_mode is ${String(journalMode)})`);
      }
      // FULL: the WAL is fsynced on every commit, so a resolved append survives a power cut.
      db.pragma('synchronous = FULL');
      // A removed payload must leave no byte behind: freed pages (a dropped bucket table) are
      // zeroed, and sorts or temporary b-trees never spill a body into a temporary file.
      db.pragma('secure_delete = ON');
      db.pragma('temp_store = MEMORY');
      if (options.alreadyPrepared) assertCurrentSchema(db);
      else migrate(db);
      return new SqliteConnection(db, filePath);
    } catch (error) {
      db?.close();
      if (error instanceof EventStoreUnavailableError) throw error;
      throw new EventStoreUnavailableError(`cannot open event store at ${filePath}: ${describe(error)}`, {
        cause: error,
      });
    }
  }

  get isOpen(): boolean {
    return !this.closed && this.db.open;
  }

  /**
   * Runs `fn` on the handle. SQLite errors (busy after the timeout, I/O, corruption, closed handle)
   * become EventStoreUnavailableError; anything else (the caller's own errors) passes through.
   */
  use<T>(operation: string, fn: (db: SqliteDatabase) => T): T {
    if (!this.isOpen) throw new EventStoreUnavailableError(`event store is closed (${operation})`);
    try {
      return fn(this.db);
    } catch (error) {
      if (isSqliteError(error) || !this.db.open) {
        throw new EventStoreUnavailableError(`event store ${operation} failed: ${describe(error)}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

/**
 * Duck-typed, not `instanceof Database.SqliteError`: the native addon registers the SqliteError
 * class of whichever copy of better-sqlite3 loaded first in the process, so under jest (one module
 * registry per test file, one addon per worker) instances can come from another realm and are not
 * even `instanceof Error`.
 */
function isSqliteError(error: unknown): error is { code: string; message: string } {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' && code.startsWith('SQLITE_') && typeof message === 'string';
}

/** SQLITE_BUSY (any extended code), raw or as the cause of an EventStoreUnavailableError. */
export function isBusy(error: unknown): boolean {
  if (error instanceof EventStoreUnavailableError) return isBusy(error.cause);
  return isSqliteError(error) && error.code.startsWith('SQLITE_BUSY');
}

/** Blocks the thread for `ms` (fractions allowed): while opening, and in the writer thread between tries for the lock. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function describe(error: unknown): string {
  if (isSqliteError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
