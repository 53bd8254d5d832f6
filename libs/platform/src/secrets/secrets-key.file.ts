import { ConfigurationError, decodeEncryptionKeys } from '@wts/config';
import { OPEN_TO_OTHERS, ensurePrivateDirectory, octalMode, openPrivateFile } from '@wts/event-store';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ENCRYPTION_KEY_BYTES } from './aes-gcm-secret.sealer';

/**
 * The embedded default's key ring when SECRETS_ENCRYPTION_KEY is unset: `DATA_DIR/<this>`, one
 * key a line (standard base64 or base64url; blank lines and `#` comments are skipped), the first
 * seals, every one opens. Only its owner may read it (mode 0600).
 */
export const SECRETS_KEY_FILE = 'secrets-encryption.key';

/** A new random key, as a key file line holds it. */
export function newEncryptionKey(): Buffer {
  return randomBytes(ENCRYPTION_KEY_BYTES);
}

/**
 * Makes `file` with one new random key unless it exists; true when this call made it. Atomic: the
 * key is written and flushed to a temporary file of this call's own (opened `wx`, mode 0600), then
 * hard-linked to `file`, which fails when another process got there first — so two processes
 * starting together (the ingress and the CLI) end up with the same single key, and none ever reads
 * an empty or half-written file.
 */
export function ensureKeyFile(file: string): boolean {
  if (existsSync(file)) return false;
  ensurePrivateDirectory(dirname(file));
  const temp = writeTemporary(file, `${newEncryptionKey().toString('base64')}\n`);
  try {
    linkSync(temp, file);
    syncDirectory(dirname(file));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * The keys of a key file, the sealing one first. Refused with a ConfigurationError that names the
 * line (never a key): a file others may read or write (it opens every signing secret: a key readable
 * by others has leaked, one writable by others could be swapped for a key someone else holds), a
 * line that is not a 32-byte key, a key listed twice, a file with no key.
 */
export function readKeyFile(file: string): Buffer[] {
  return readKeyFileVersion(file).keys;
}

/** The keys of a key file and the stamp of the version they were read from (see keyFileStamp). */
export function readKeyFileVersion(file: string): { keys: Buffer[]; stamp: string } {
  const { text, stamp } = readOwnerOnly(file);
  return { keys: keysOf(file, text), stamp };
}

function keysOf(file: string, text: string): Buffer[] {
  const entries = text
    .split('\n')
    .map((line, index) => ({ where: `${file} line ${index + 1}`, text: line.trim() }))
    .filter((entry) => entry.text !== '' && !entry.text.startsWith('#'));
  const problems: string[] = [];
  const keys = decodeEncryptionKeys(entries, problems);
  if (problems.length === 0 && keys.length === 0)
    problems.push(`${file} holds no key: write one 32-byte key in base64 a line, the sealing one first`);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return keys;
}

/**
 * Puts `key` first in the key file (it seals from now on), keeping every line that was there: the
 * file is written whole to a temporary file (mode 0600) and renamed over the old one, so a reader
 * sees the old file or the new one, never a mix.
 */
export function prependKeyToFile(file: string, key: Buffer): void {
  if (key.length !== ENCRYPTION_KEY_BYTES) throw new Error(`an encryption key has ${ENCRYPTION_KEY_BYTES} bytes, not ${key.length}`);
  const { text } = readOwnerOnly(file);
  keysOf(file, text);
  const temp = writeTemporary(file, `${key.toString('base64')}\n${text}`);
  try {
    renameSync(temp, file);
    syncDirectory(dirname(file));
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Which version of the file is there: changes when it is replaced (rename) or written in place. */
export function keyFileStamp(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** The file's text and stamp, read through one descriptor (the mode checked is the mode of what is read). */
function readOwnerOnly(file: string): { text: string; stamp: string } {
  const fd = openSync(file, 'r');
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new ConfigurationError([`${file} is not a file: the secrets key file holds one key a line`]);
    const mode = stats.mode & 0o777;
    if ((mode & OPEN_TO_OTHERS) !== 0) {
      throw new ConfigurationError([
        `${file} may be read or written by other users (mode ${octalMode(mode)}): it holds the keys of every signing secret. Allow its owner only: chmod 600 ${file}`,
      ]);
    }
    return { text: readFileSync(fd, 'utf8'), stamp: keyFileStamp(stats) };
  } finally {
    closeSync(fd);
  }
}

/** A new file beside `file`, of this call only (`wx`), owner-only (0600), written and flushed. */
function writeTemporary(file: string, text: string): string {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openPrivateFile(temp);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Makes a new name in the directory durable (best effort: some systems cannot open a directory). */
function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, 'r');
    fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory; the file itself is flushed already.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
