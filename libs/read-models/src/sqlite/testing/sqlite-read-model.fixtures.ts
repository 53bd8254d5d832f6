import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { READ_MODEL_MIGRATIONS } from '../sqlite-read-model.migrations';
import { SqliteReadModelStore } from '../sqlite-read-model.store';

/**
 * Read-model files for the SQLite specs (test code, not shipped): `tempFile()` names a file in a
 * directory of its own, under parent directories not made yet; every directory is removed after
 * the spec file's tests. Call it at the top of the spec file.
 */
export function useTempFiles(): () => string {
  const tempDirs: string[] = [];
  afterAll(() => {
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'wts-read-models-'));
    tempDirs.push(dir);
    return join(dir, 'nested', 'deeper', 'read-models.db');
  };
}

/** `openStore` opens a store a test closes no more: each is closed after its test. Call it in the describe. */
export function useOpenedStores(): (file: string, options?: Parameters<typeof SqliteReadModelStore.open>[1]) => SqliteReadModelStore {
  const opened: SqliteReadModelStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  return (file, options) => {
    const store = SqliteReadModelStore.open(file, options);
    opened.push(store);
    return store;
  };
}

/** The file as a build of schema `version` left it: its first `version` migrations, its user_version, then `rows` (SQL). */
export function writeFileOfSchemaVersion(file: string, version: number, rows: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const raw = new Database(file);
  for (const migration of READ_MODEL_MIGRATIONS.slice(0, version)) raw.exec(migration);
  raw.pragma(`user_version = ${version}`);
  raw.exec(rows);
  raw.close();
}
