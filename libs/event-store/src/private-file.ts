import { closeSync, chmodSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** A directory the service writes its data in: its owner only, whatever the umask. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** A file the service writes (a database, its WAL and shared-memory files, a key file): its owner only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Group and other permission bits: a private directory or file has none of them. */
export const OPEN_TO_OTHERS = 0o077;

/** A permission mode as chmod takes it (`0600`). */
export function octalMode(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/**
 * Makes `directory` (and any missing parent) owner-only when this call creates it. The mode is
 * set with chmod after mkdir, so the process's umask cannot widen it or strip the owner's bits.
 * An existing directory is left as it is (the service's start tightens DATA_DIR and says so).
 */
export function ensurePrivateDirectory(directory: string): void {
  const created = mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (created !== undefined) chmodSync(directory, PRIVATE_DIRECTORY_MODE);
}

/**
 * Creates `file` empty and owner-only unless it exists (its directory too, see
 * ensurePrivateDirectory). Called before SQLite opens a database: SQLite creates the database's
 * `-wal`, `-shm` and `-journal` files with the mode of the database file, so they are owner-only
 * too. Exclusive create: of two processes creating it together, one makes it, the other finds it.
 */
export function ensurePrivateFile(file: string): void {
  ensurePrivateDirectory(dirname(file));
  let fd: number;
  try {
    fd = openPrivateFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  closeSync(fd);
}

/**
 * Creates `file` (exclusively: EEXIST when it is there) owner-only, exactly 0600 whatever the umask
 * took away from the mode asked for, and returns its descriptor for writing.
 */
export function openPrivateFile(file: string): number {
  const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}
