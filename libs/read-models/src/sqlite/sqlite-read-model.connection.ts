import Database from 'better-sqlite3';
import { ReadModelUnavailableError } from '../read-model.port';
import { migrate } from './sqlite-read-model.migrations';

export type SqliteDatabase = Database.Database;

/**
 * One better-sqlite3 handle with the read model's pragmas, and the one place where SQLite
 * failures become ReadModelUnavailableError (callers answer 503).
 */
export class SqliteReadModelConnection {
  private closed = false;

  private constructor(readonly db: SqliteDatabase) {}

  /**
   * Opens the file, switching it to WAL and bringing the schema up to date. Processes opening a
   * new file at the same moment race for the WAL switch, where SQLite answers SQLITE_BUSY without
   * calling the busy handler: the whole open is retried (it is idempotent) until busyTimeoutMs.
   */
  static open(filePath: string, busyTimeoutMs: number): SqliteReadModelConnection {
    const deadline = Date.now() + busyTimeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return SqliteReadModelConnection.openOnce(filePath, busyTimeoutMs);
      } catch (error) {
        const cause = error instanceof ReadModelUnavailableError ? error.cause : error;
        if (!isBusy(cause) || Date.now() >= deadline) throw error;
        sleepSync(Math.min(5 * 2 ** attempt, 100));
      }
    }
  }

  private static openOnce(filePath: string, busyTimeoutMs: number): SqliteReadModelConnection {
    const inMemory = filePath === ':memory:';
    let db: SqliteDatabase | undefined;
    try {
      // `timeout` is SQLite's busy_timeout: writers in other processes wait instead of failing.
      db = new Database(filePath, { timeout: busyTimeoutMs });
      db.defaultSafeIntegers(true);
      const journalMode = db.pragma('journal_mode = WAL', { simple: true });
      if (!inMemory && journalMode !== 'wal') {
        throw new Error(`could not switch ${filePath} to WAL mode (journal_mode is ${String(journalMode)})`);
      }
      // NORMAL: a power cut may lose the last commits, which the projector replays from the
      // event store (the checkpoint is lost with them); in exchange no fsync per commit.
      db.pragma('synchronous = NORMAL');
      migrate(db);
      return new SqliteReadModelConnection(db);
    } catch (error) {
      db?.close();
      throw new ReadModelUnavailableError(`cannot open read model at ${filePath}: ${describe(error)}`, { cause: error });
    }
  }

  get isOpen(): boolean {
    return !this.closed && this.db.open;
  }

  /**
   * Runs `fn` on the handle. SQLite errors (busy after the timeout, I/O, corruption, closed
   * handle) become ReadModelUnavailableError naming `operation`; anything else passes through.
   */
  use<T>(operation: string, fn: (db: SqliteDatabase) => T): T {
    if (!this.isOpen) throw new ReadModelUnavailableError(`read model is closed (${operation})`);
    try {
      return fn(this.db);
    } catch (error) {
      if (isSqliteError(error) || !this.db.open) {
        throw new ReadModelUnavailableError(`read model ${operation} failed: ${describe(error)}`, { cause: error });
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
 * Duck-typed, not `instanceof Database.SqliteError`: under jest the native addon's SqliteError
 * can come from another module registry (another realm), where instanceof is false.
 */
function isSqliteError(error: unknown): error is { code: string; message: string } {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' && code.startsWith('SQLITE_') && typeof message === 'string';
}

function isBusy(error: unknown): boolean {
  return isSqliteError(error) && error.code.startsWith('SQLITE_BUSY');
}

/** Blocks the thread for `ms` (only while opening, before anything is served). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function describe(error: unknown): string {
  if (isSqliteError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
