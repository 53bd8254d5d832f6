import { ConfigurationError, type AppConfig } from '@wts/config';
import { OPEN_TO_OTHERS, PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE, ensurePrivateDirectory, octalMode } from '@wts/event-store';
import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SECRETS_KEY_FILE } from './secrets/secrets-key.file';

/** Whether anything is kept under DATA_DIR: the embedded event store (and its key file), or SQLite read models. */
export function usesDataDirectory(config: AppConfig): boolean {
  return config.eventStore.connectionString === undefined || config.database.url === undefined;
}

/**
 * DATA_DIR made private at a service's start, whatever the umask: created 0700 when missing; when
 * it exists open to other users (an install from before, a `mkdir` under umask 022), the
 * directory is tightened to 0700 and each file directly in it (databases, their -wal and -shm) to
 * 0600, and `onWarning` says once what was changed from which mode. The secrets key file is left
 * to its own check, which refuses it when open to others: a key others could read may have leaked
 * and must be rotated, not just hidden. Symbolic links are not followed. A directory or file this
 * process cannot tighten (another user's) stops the start with a ConfigurationError naming it.
 */
export function secureDataDirectory(config: AppConfig, onWarning: (message: string) => void): void {
  if (!usesDataDirectory(config)) return;
  const directory = config.storage.dataDir;
  ensurePrivateDirectory(directory);
  const changed: string[] = [];
  const directoryMode = statSync(directory).mode & 0o777;
  if ((directoryMode & OPEN_TO_OTHERS) !== 0) {
    if (tighten(directory, PRIVATE_DIRECTORY_MODE, directoryMode)) changed.push(`the directory (was ${octalMode(directoryMode)})`);
  }
  changed.push(...tightenFiles(directory, readdirSync(directory)));
  if (changed.length > 0) {
    onWarning(`DATA_DIR ${directory} was open to other users; made owner-only (0700, files 0600): ${changed.join(', ')}`);
  }
}

/**
 * Tightens the named files of `directory` open to others to 0600 (the key file and anything not a
 * plain file left alone); what was changed, from which mode. The other service starts beside this
 * one and writes its own files meanwhile (the key file goes through a temporary file renamed into
 * place): a file gone by the time it is looked at is passed over.
 */
export function tightenFiles(directory: string, names: readonly string[]): string[] {
  const changed: string[] = [];
  for (const name of names) {
    if (name === SECRETS_KEY_FILE) continue;
    const file = join(directory, name);
    const stats = lstatSync(file, { throwIfNoEntry: false });
    const mode = (stats?.mode ?? 0) & 0o777;
    if (!stats?.isFile() || (mode & OPEN_TO_OTHERS) === 0) continue;
    if (tighten(file, PRIVATE_FILE_MODE, mode)) changed.push(`${name} (was ${octalMode(mode)})`);
  }
  return changed;
}

/** chmod, or false when the path is gone meanwhile; a path this process may not change stops the start. */
function tighten(path: string, mode: number, was: number): boolean {
  try {
    chmodSync(path, mode);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    if (code === 'ENOENT') return false;
    throw new ConfigurationError([
      `${path} is open to other users (mode ${octalMode(was)}) and this process cannot make it owner-only (${code}): as its owner, chmod ${octalMode(mode)} ${path}`,
    ]);
  }
}
