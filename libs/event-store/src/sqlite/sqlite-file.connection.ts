import Database from 'better-sqlite3';

/*
 * What the two SQLite files of the service share: the event store's (sqlite.connection.ts) and the
 * read model's (libs/read-models/src/sqlite/sqlite-read-model.connection.ts). This file imports
 * nothing of the service and is reached by relative paths only, also from the read model: under
 * test the worker threads and second processes that load these connections transpile the sources
 * and resolve relative imports only, not the `@wts/*` aliases (testing/typescript-worker.loader.js,
 * testing/append-worker.js); the build lays libs/ out the same way in dist/.
 */

export type SqliteDatabase = Database.Database;

/** A store's own "cannot serve now" error: EventStoreUnavailableError, ReadModelUnavailableError. */
export type UnavailableErrorClass = new (message: string, options?: { cause?: unknown }) => Error;

/** Which store a connection serves, as its errors say. */
export interface SqliteFileStore {
  /** The store's name in error messages: "event store", "read model". */
  readonly name: string;
  readonly Unavailable: UnavailableErrorClass;
}

/** How one store opens its file. */
export interface SqliteFileOpening {
  /** How long the whole open is retried while another process holds the file busy. */
  readonly retryForMs: number;
  /** SQLite's busy_timeout for the handle: writers in other processes wait instead of failing. */
  readonly busyTimeoutMs: number;
  /** The file is in WAL mode already (opened by this process before): checked, not switched. */
  readonly walAlready?: boolean;
  /** Before SQLite opens a file on disk (not for ':memory:'). */
  beforeOpen?(): void;
  /** The store's own pragmas and schema, on the handle in WAL mode. */
  prepare(db: SqliteDatabase): void;
}

/**
 * Opens the file, switching it to WAL, then `opening.prepare`s it, and hands the handle to
 * `connect`. Processes opening a new file at the same moment race for the WAL switch, where SQLite
 * answers SQLITE_BUSY without calling the busy handler: the whole open is retried (it is
 * idempotent) until `retryForMs`. A failure is the store's Unavailable error.
 */
export function openSqliteFile<C>(
  filePath: string,
  store: SqliteFileStore,
  opening: SqliteFileOpening,
  connect: (db: SqliteDatabase) => C,
): C {
  const deadline = Date.now() + opening.retryForMs;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return connect(openOnce(filePath, store, opening));
    } catch (error) {
      if (!isBusyFailure(error, store.Unavailable) || Date.now() >= deadline) throw error;
      sleepSync(Math.min(5 * 2 ** attempt, 100));
    }
  }
}

function openOnce(filePath: string, store: SqliteFileStore, opening: SqliteFileOpening): SqliteDatabase {
  const inMemory = filePath === ':memory:';
  let db: SqliteDatabase | undefined;
  try {
    if (!inMemory) opening.beforeOpen?.();
    db = new Database(filePath, { timeout: opening.busyTimeoutMs });
    db.defaultSafeIntegers(true);
    const journalMode = db.pragma(opening.walAlready ? 'journal_mode' : 'journal_mode = WAL', { simple: true });
    if (!inMemory && journalMode !== 'wal') {
      throw new Error(`could not switch ${filePath} to WAL mode (journal_mode is ${String(journalMode)})`);
    }
    opening.prepare(db);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof store.Unavailable) throw error;
    throw new store.Unavailable(`cannot open ${store.name} at ${filePath}: ${describeSqliteError(error)}`, { cause: error });
  }
}

/**
 * One better-sqlite3 handle, and the one place where SQLite failures become the store's
 * Unavailable error (callers answer 503).
 */
export abstract class SqliteFileConnection {
  private closed = false;

  protected constructor(
    protected readonly db: SqliteDatabase,
    private readonly store: SqliteFileStore,
  ) {}

  get isOpen(): boolean {
    return !this.closed && this.db.open;
  }

  /**
   * Runs `fn` on the handle. SQLite errors (busy after the timeout, I/O, corruption, closed handle)
   * become the store's Unavailable error naming `operation`; anything else (the caller's own errors)
   * passes through.
   */
  use<T>(operation: string, fn: (db: SqliteDatabase) => T): T {
    const { name, Unavailable } = this.store;
    if (!this.isOpen) throw new Unavailable(`${name} is closed (${operation})`);
    try {
      return fn(this.db);
    } catch (error) {
      if (isSqliteError(error) || !this.db.open) {
        throw new Unavailable(`${name} ${operation} failed: ${describeSqliteError(error)}`, { cause: error });
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
export function isSqliteError(error: unknown): error is { code: string; message: string } {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' && code.startsWith('SQLITE_') && typeof message === 'string';
}

/** SQLITE_BUSY (any extended code), raw or as the cause of the store's Unavailable error. */
export function isBusyFailure(error: unknown, Unavailable: UnavailableErrorClass): boolean {
  if (error instanceof Unavailable) return isBusyFailure(error.cause, Unavailable);
  return isSqliteError(error) && error.code.startsWith('SQLITE_BUSY');
}

/** Blocks the thread for `ms` (fractions allowed): while opening, and in the writer thread between tries for the lock. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function describeSqliteError(error: unknown): string {
  if (isSqliteError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
