/** A SQLite event store in a temporary directory of its own, for the specs that need a real store and nothing else. */
import { SqliteEventStore } from '@wts/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useOpened } from './per-test.kit';

export interface TempEventStore {
  /** The directory holding `events.sqlite` (a service process may be pointed at it as its DATA_DIR). */
  readonly dir: string;
  readonly store: SqliteEventStore;
}

/**
 * Call it in a describe: a store in a fresh `wts-<label>-` directory, opened before each test
 * (`'all'`: once, before the describe's tests) and closed, its directory removed, after.
 */
export function useTempEventStore(label: string, scope: 'each' | 'all' = 'each'): TempEventStore {
  const current = useOpened(
    'temporary event store',
    (): TempEventStore => {
      const dir = mkdtempSync(join(tmpdir(), `wts-${label}-`));
      return { dir, store: SqliteEventStore.open(join(dir, 'events.sqlite')) };
    },
    async ({ dir, store }) => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    scope,
  );
  return {
    get dir(): string {
      return current().dir;
    },
    get store(): SqliteEventStore {
      return current().store;
    },
  };
}
