import { inspect } from 'node:util';

/** AES-256 keys: 32 bytes, written as 44 base64 characters (with one `=`) or 43 base64url ones. */
const KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const HOW_TO_MAKE = 'make one with: openssl rand -base64 32';

/** The signing secrets' key ring: the first key seals, every key opens what it sealed. Never logged or printed. */
export interface SecretsSettings {
  /** Undefined without SECRETS_ENCRYPTION_KEY (the embedded default then keeps its keys in a file under DATA_DIR). */
  readonly encryptionKeys: readonly Buffer[] | undefined;
}

/** One written key and where it was written, for messages that name the place and never the value. */
export interface KeyEntry {
  /** `SECRETS_ENCRYPTION_KEY entry 2`, `/data/secrets-encryption.key line 3`. */
  readonly where: string;
  readonly text: string;
}

/**
 * The keys of `entries`, decoded; each fault is pushed to `problems` as one sentence naming the
 * entry by its place (never by its value): empty, not base64 / base64url, not 32 bytes, or the
 * same key as an earlier entry.
 */
export function decodeEncryptionKeys(entries: readonly KeyEntry[], problems: string[]): Buffer[] {
  const keys: Buffer[] = [];
  const seen = new Map<string, string>();
  for (const { where, text } of entries) {
    const value = text.trim();
    if (value === '') {
      problems.push(`${where} is empty (a stray comma?): give 32-byte keys in base64, separated by commas`);
      continue;
    }
    const key = decodeKey(value);
    if (key === undefined) {
      problems.push(`${where} is not base64 or base64url: a key is 32 random bytes, 44 base64 characters (${HOW_TO_MAKE})`);
      continue;
    }
    if (key.length !== KEY_BYTES) {
      problems.push(`${where} is ${key.length} bytes, not 32: an AES-256 key is 32 bytes, 44 base64 characters (${HOW_TO_MAKE})`);
      continue;
    }
    const earlier = seen.get(key.toString('hex'));
    if (earlier !== undefined) {
      problems.push(`${where} is the same key as ${earlier}: list each key once`);
      continue;
    }
    seen.set(key.toString('hex'), where);
    keys.push(key);
  }
  return keys;
}

/** Standard base64 or base64url (one alphabet, not both), canonical: decoding and encoding again gives it back. */
function decodeKey(value: string): Buffer | undefined {
  const url = !BASE64.test(value);
  if (url && !BASE64URL.test(value)) return undefined;
  const bytes = Buffer.from(value, url ? 'base64url' : 'base64');
  const again = bytes.toString(url ? 'base64url' : 'base64').replace(/=+$/, '');
  return again === value.replace(/=+$/, '') ? bytes : undefined;
}

/**
 * SECRETS_ENCRYPTION_KEY: a comma-separated list of keys (the first seals, all open), or undefined
 * when unset. Problems go to `problems`.
 */
export function parseSecretsSettings(value: string | undefined, problems: string[]): SecretsSettings {
  if (value === undefined || value.trim() === '') return secretsSettings(undefined);
  const entries = value.split(',').map((text, index) => ({ where: `SECRETS_ENCRYPTION_KEY entry ${index + 1}`, text }));
  const keys = decodeEncryptionKeys(entries, problems);
  return secretsSettings(keys.length > 0 ? keys : undefined);
}

/**
 * The settings, shown as `[N keys, redacted]` by JSON.stringify (and so by pino) and by
 * util.inspect (console.log): a configuration printed or logged whole never shows a key.
 */
export function secretsSettings(keys: readonly Buffer[] | undefined): SecretsSettings {
  const settings: SecretsSettings = { encryptionKeys: keys };
  const shown = (): { encryptionKeys: string | undefined } => ({
    encryptionKeys: keys === undefined ? undefined : `[${keys.length} ${keys.length === 1 ? 'key' : 'keys'}, redacted]`,
  });
  Object.defineProperty(settings, 'toJSON', { value: shown, enumerable: false });
  Object.defineProperty(settings, inspect.custom, { value: () => shown(), enumerable: false });
  return Object.freeze(settings);
}
