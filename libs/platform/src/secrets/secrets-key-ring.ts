import type { SecretSealer } from '@wts/application';
import type { AppConfig } from '@wts/config';
import { join } from 'node:path';
import { AesGcmSecretSealer, encryptionKeyId } from './aes-gcm-secret.sealer';
import { KeyFileSecretSealer } from './key-file-secret.sealer';
import { SECRETS_KEY_FILE, ensureKeyFile, readKeyFile } from './secrets-key.file';

/** Where a process's key ring comes from. */
export type KeyRingSource =
  | { readonly kind: 'environment' }
  /** The embedded default without SECRETS_ENCRYPTION_KEY; `created`: this process made the file (one new key). */
  | { readonly kind: 'file'; readonly file: string; readonly created: boolean };

export interface KeyRing {
  /** The sealing key first. Never logged or printed: name them by encryptionKeyId. */
  readonly keys: readonly Buffer[];
  readonly source: KeyRingSource;
}

/** The embedded default's key file: DATA_DIR/secrets-encryption.key. */
export function secretsKeyFile(config: AppConfig): string {
  return join(config.storage.dataDir, SECRETS_KEY_FILE);
}

/**
 * The signing secrets' key ring: SECRETS_ENCRYPTION_KEY when set; else, in the embedded default,
 * the key file under DATA_DIR (made with one new random key when absent); else (the production
 * shape, EVENTSTORE_CONNECTION_STRING, without the variable) undefined: replicas must share their
 * keys, which a file of one machine cannot do, so signed schemes cannot be enabled there. A bad
 * key file throws a ConfigurationError naming the fault.
 */
export function loadKeyRing(config: AppConfig): KeyRing | undefined {
  const fromEnvironment = config.secrets.encryptionKeys;
  if (fromEnvironment !== undefined) return { keys: fromEnvironment, source: { kind: 'environment' } };
  if (config.eventStore.connectionString !== undefined) return undefined;
  const file = secretsKeyFile(config);
  const created = ensureKeyFile(file);
  return { keys: readKeyFile(file), source: { kind: 'file', file, created } };
}

export interface SecretSealerOptions {
  /** A key file that changed but cannot be read again (the ring in use stays). */
  readonly onWarning?: (message: string) => void;
}

/**
 * The sealer of this process (see loadKeyRing), or undefined when signing secrets cannot be kept.
 * From the key file, it follows the file's changes (KeyFileSecretSealer).
 */
export function openSecretSealer(config: AppConfig, options: SecretSealerOptions = {}): SecretSealer | undefined {
  const ring = loadKeyRing(config);
  if (ring === undefined) return undefined;
  if (ring.source.kind === 'environment') return new AesGcmSecretSealer(ring.keys);
  return new KeyFileSecretSealer(ring.source.file, options.onWarning);
}

/** One line for a service's start: where the keys are and which one seals (an id, never a key). */
export function describeSecretSealer(sealer: SecretSealer | undefined): string {
  if (sealer === undefined) {
    return 'signing secrets: SECRETS_ENCRYPTION_KEY is not set, so no signed verification scheme (github, stripe, standard_webhooks, …: every one but bearer) can be enabled';
  }
  const where = sealer instanceof KeyFileSecretSealer ? sealer.file : 'SECRETS_ENCRYPTION_KEY';
  return `signing secrets: sealed under key ${sealer.currentKeyId} (keys from ${where})`;
}

/** The ids of a ring's keys, the sealing one first. */
export function keyRingIds(ring: KeyRing): string[] {
  return ring.keys.map((key) => encryptionKeyId(key));
}
