import type { CheckpointStore, GlobalPosition } from '../event-store.port';
import type { SqliteConnection } from './sqlite.connection';
import type { SqliteWriter } from './sqlite-writer.client';

interface CheckpointRow {
  readonly commit_pos: bigint;
  readonly prepare_pos: bigint;
}

/**
 * Named positions in the `checkpoints` table of the event store's own file. A save goes through the
 * store's writer thread (it shares a commit with the appends in flight) and is durable when it
 * resolves (synchronous=FULL). Obtain one through SqliteEventStore.checkpoints().
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly loadStmt;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly writer: SqliteWriter,
  ) {
    this.loadStmt = connection.use('prepare', (db) =>
      db.prepare<[string], CheckpointRow>('SELECT commit_pos, prepare_pos FROM checkpoints WHERE name = ?'),
    );
  }

  async load(name: string): Promise<GlobalPosition | undefined> {
    const row = this.connection.use('checkpoint load', () => this.loadStmt.get(name));
    return row && { commit: row.commit_pos, prepare: row.prepare_pos };
  }

  async save(name: string, position: GlobalPosition): Promise<void> {
    await this.writer.saveCheckpoint(name, position);
  }
}
