// Relative, not '@wts/event-store': sqlite-activity.thread loads this file in a worker thread,
// which under test resolves relative imports only (see sqlite-file.connection.ts).
import {
  SqliteFileConnection,
  openSqliteFile,
  type SqliteDatabase,
  type SqliteFileStore,
} from '../../../event-store/src/sqlite/sqlite-file.connection';
import { ReadModelUnavailableError } from '../read-model.port';
import { migrate } from './sqlite-read-model.migrations';

export type { SqliteDatabase } from '../../../event-store/src/sqlite/sqlite-file.connection';

const READ_MODEL: SqliteFileStore = { name: 'read model', Unavailable: ReadModelUnavailableError };

/**
 * One better-sqlite3 handle with the read model's pragmas, and the one place where SQLite
 * failures become ReadModelUnavailableError (callers answer 503).
 */
export class SqliteReadModelConnection extends SqliteFileConnection {
  private constructor(override readonly db: SqliteDatabase) {
    super(db, READ_MODEL);
  }

  /**
   * Opens the file, switching it to WAL and bringing the schema up to date; the open is retried
   * while another process switches the same new file (openSqliteFile) until busyTimeoutMs.
   */
  static open(filePath: string, busyTimeoutMs: number): SqliteReadModelConnection {
    const opening = {
      retryForMs: busyTimeoutMs,
      busyTimeoutMs,
      prepare: (db: SqliteDatabase) => {
        // NORMAL: a power cut may lose the last commits, which the projector replays from the
        // event store (the checkpoint is lost with them); in exchange no fsync per commit.
        db.pragma('synchronous = NORMAL');
        migrate(db);
      },
    };
    return openSqliteFile(filePath, READ_MODEL, opening, (db) => new SqliteReadModelConnection(db));
  }
}
