import Database from 'better-sqlite3';

/** Runs `read` on a read-only handle of its own to a SQLite file (a store's, from outside it), closed after. */
export function readSqliteFile<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The journal mode and schema version (user_version) a SQLite file says it has. */
export function sqliteFileHeader(file: string): { readonly journalMode: unknown; readonly userVersion: unknown } {
  return readSqliteFile(file, (db) => ({
    journalMode: db.pragma('journal_mode', { simple: true }),
    userVersion: db.pragma('user_version', { simple: true }),
  }));
}

/** Stamps a SQLite file with schema version `version`, as a newer build would leave it. */
export function stampSqliteUserVersion(file: string, version: number): void {
  const db = new Database(file);
  try {
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
}

/** Runs `during` while another connection holds the file's write lock (BEGIN IMMEDIATE), rolled back and closed after. */
export async function whileWriteLocked(file: string, during: () => Promise<void>): Promise<void> {
  const db = new Database(file);
  db.exec('BEGIN IMMEDIATE');
  try {
    await during();
  } finally {
    db.exec('ROLLBACK');
    db.close();
  }
}
