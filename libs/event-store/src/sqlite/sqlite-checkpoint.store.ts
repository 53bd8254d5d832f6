import type { CheckpointStore, GlobalPosition } from '../event-store.port';
import type { SqliteConnection } from './sqlite.connection';

interface CheckpointRow {
  readonly commit_pos: bigint;
  readonly prepare_pos: bigint;
}

/**
 * Named positions in the `checkpoints` table of the event store's own file. A save is durable when
 * it resolves (synchronous=FULL). Obtain one through SqliteEventStore.checkpoints().
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly loadStmt;
  private readonly saveStmt;

  constructor(private readonly connection: SqliteConnection) {
    this.loadStmt = connection.use('prepare', (db) =>
      db.prepare<[string], CheckpointRow>('SELECT commit_pos, prepare_pos FROM checkpoints WHERE name = ?'),
    );
    this.saveStmt = connection.use('prepare', (db) =>
      db.prepare<[string, bigint, bigint, number]>(
        `INSERT INTO checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET
           commit_pos = excluded.commit_pos, prepare_pos = excluded.prepare_pos, updated_at = excluded.updated_at`,
      ),
    );
  }

  async load(name: string): Promise<GlobalPosition | undefined> {
    const row = this.connection.use('checkpoint load', () => this.loadStmt.get(name));
    return row && { commit: row.commit_pos, prepare: row.prepare_pos };
  }

  async save(name: string, position: GlobalPosition): Promise<void> {
    this.connection.use('checkpoint save', () =>
      this.saveStmt.run(name, position.commit, position.prepare, Date.now()),
    );
  }
}
