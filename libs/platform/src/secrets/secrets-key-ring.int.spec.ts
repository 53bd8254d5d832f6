import { ConfigurationError, loadConfig, type AppConfig } from '@wts/config';
import { signingSecretBinding } from '@wts/domain';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AesGcmSecretSealer, encryptionKeyId } from './aes-gcm-secret.sealer';
import { KeyFileSecretSealer } from './key-file-secret.sealer';
import { SECRETS_KEY_FILE, prependKeyToFile } from './secrets-key.file';
import { describeSecretSealer, loadKeyRing, openSecretSealer } from './secrets-key-ring';
import { captureError } from '../../../../test/support/thrown-error.assertions';

const BUILT_RING = join(__dirname, '../../../../dist/libs/platform/src/secrets/secrets-key-ring.js');
const BUILT_CONFIG = join(__dirname, '../../../../dist/libs/config/src/index.js');
const BINDING = signingSecretBinding('whk_KeyRingTest00000000000', 'sgs_KeyRingTest00000000000');

describe('the signing secrets key ring at start', () => {
  let dataDir: string;
  let keyFile: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'wts-key-ring-'));
    keyFile = join(dataDir, SECRETS_KEY_FILE);
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  const config = (env: Record<string, string> = {}): AppConfig => loadConfig({ ...env, DATA_DIR: dataDir });

  it('in the embedded default, makes DATA_DIR/secrets-encryption.key: one random 32-byte key in base64, mode 0600', () => {
    const ring = loadKeyRing(config());
    expect(ring?.source).toEqual({ kind: 'file', file: keyFile, created: true });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const lines = readFileSync(keyFile, 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(lines[1]).toBe('');
    expect(ring?.keys).toEqual([Buffer.from(lines[0], 'base64')]);
    // Nothing else is left beside it (the temporary file it was written to is gone).
    expect(readdirSync(dataDir)).toEqual([SECRETS_KEY_FILE]);
  });

  it('in a DATA_DIR that does not exist yet, makes the directory too', () => {
    const nested = join(dataDir, 'not', 'yet');
    const sealer = openSecretSealer(loadConfig({ DATA_DIR: nested }));
    expect(sealer).toBeInstanceOf(KeyFileSecretSealer);
    expect(existsSync(join(nested, SECRETS_KEY_FILE))).toBe(true);
  });

  it('on the next open, reuses the file: same key, what the first sealer sealed opens', () => {
    const first = openSecretSealer(config());
    const sealed = first!.seal('whsec_first', BINDING);
    const before = readFileSync(keyFile, 'utf8');
    const ring = loadKeyRing(config());
    expect(ring?.source).toEqual({ kind: 'file', file: keyFile, created: false });
    const second = openSecretSealer(config());
    expect(second!.currentKeyId).toBe(first!.currentKeyId);
    expect(second!.open(sealed, BINDING)).toBe('whsec_first');
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
  });

  it('given processes opening it at the same moment, they all end up with the one same key', async () => {
    if (!existsSync(BUILT_RING)) throw new Error(`${BUILT_RING} is missing: run \`npm run build\` first (npm test does)`);
    const startAt = Date.now() + 1_500;
    // Each child loads the built module first, then waits for the same instant, then opens the ring.
    const script = `
      const { loadConfig } = require(${JSON.stringify(BUILT_CONFIG)});
      const { openSecretSealer } = require(${JSON.stringify(BUILT_RING)});
      const config = loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)} });
      while (Date.now() < ${startAt}) {}
      process.stdout.write(openSecretSealer(config).currentKeyId);
    `;
    const ids = await Promise.all(Array.from({ length: 6 }, () => runNode(script)));
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^k[0-9a-f]{16}$/);
    const lines = readFileSync(keyFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(encryptionKeyId(Buffer.from(lines[0], 'base64'))).toBe(ids[0]);
    expect(readdirSync(dataDir)).toEqual([SECRETS_KEY_FILE]);
  }, 30_000);

  it('given SECRETS_ENCRYPTION_KEY, then its keys win: the key file is neither read nor made', () => {
    const envKey = randomBytes(32);
    const sealer = openSecretSealer(config({ SECRETS_ENCRYPTION_KEY: envKey.toString('base64') }));
    expect(sealer).toBeInstanceOf(AesGcmSecretSealer);
    expect(sealer?.currentKeyId).toBe(encryptionKeyId(envKey));
    expect(existsSync(keyFile)).toBe(false);
    // A key file already there changes nothing either.
    const fileSealer = openSecretSealer(config());
    const fromEnv = openSecretSealer(config({ SECRETS_ENCRYPTION_KEY: envKey.toString('base64') }));
    expect(fromEnv?.currentKeyId).toBe(encryptionKeyId(envKey));
    expect(fromEnv?.holdsKey(fileSealer!.currentKeyId)).toBe(false);
    expect(describeSecretSealer(fromEnv)).toBe(
      `signing secrets: sealed under key ${encryptionKeyId(envKey)} (keys from SECRETS_ENCRYPTION_KEY)`,
    );
  });

  it('in the production shape (EventStoreDB) without SECRETS_ENCRYPTION_KEY, no sealer and no file: replicas could not share it', () => {
    const production = { EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false' };
    expect(openSecretSealer(config(production))).toBeUndefined();
    expect(existsSync(keyFile)).toBe(false);
    expect(describeSecretSealer(undefined)).toContain('SECRETS_ENCRYPTION_KEY is not set');
    const envKey = randomBytes(32);
    expect(openSecretSealer(config({ ...production, SECRETS_ENCRYPTION_KEY: envKey.toString('base64url') }))?.currentKeyId).toBe(
      encryptionKeyId(envKey),
    );
  });

  it('given a file of several keys (comments and blank lines skipped), the first seals and every one opens', () => {
    const [newer, older] = [randomBytes(32), randomBytes(32)];
    const sealedByOlder = new AesGcmSecretSealer([older]).seal('whsec_older', BINDING);
    writeFileSync(keyFile, `# current\n${newer.toString('base64')}\n\n# before the rotation\n${older.toString('base64url')}\n`, {
      mode: 0o600,
    });
    const sealer = openSecretSealer(config());
    expect(sealer?.currentKeyId).toBe(encryptionKeyId(newer));
    expect(sealer?.open(sealedByOlder, BINDING)).toBe('whsec_older');
    expect(describeSecretSealer(sealer)).toBe(`signing secrets: sealed under key ${encryptionKeyId(newer)} (keys from ${keyFile})`);
  });

  it.each(['0644', '0640', '0604', '0660', '0666', '0620'])(
    'given the file with mode %s (open to others), then start is refused, naming the fix',
    (mode) => {
      openSecretSealer(config());
      chmodSync(keyFile, parseInt(mode, 8));
      const error = captureError(() => openSecretSealer(config()));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(String(error)).toContain(`${keyFile} may be read or written by other users (mode ${mode})`);
      expect(String(error)).toContain(`chmod 600 ${keyFile}`);
    },
  );

  it('given the file read-only for its owner (0400), then it is used', () => {
    const id = openSecretSealer(config())!.currentKeyId;
    chmodSync(keyFile, 0o400);
    expect(openSecretSealer(config())?.currentKeyId).toBe(id);
  });

  it('given a file with a bad line, then start is refused naming the line, never showing its text', () => {
    const good = randomBytes(32).toString('base64');
    const short = randomBytes(20).toString('base64');
    writeFileSync(keyFile, `${good}\n${short}\n${good}\n`, { mode: 0o600 });
    const error = captureError(() => openSecretSealer(config())) as ConfigurationError;
    expect(error.problems).toEqual([
      `${keyFile} line 2 is 20 bytes, not 32: an AES-256 key is 32 bytes, 44 base64 characters (make one with: openssl rand -base64 32)`,
      `${keyFile} line 3 is the same key as ${keyFile} line 1: list each key once`,
    ]);
    expect(String(error)).not.toContain(good);
    expect(String(error)).not.toContain(short);
    writeFileSync(keyFile, '# nothing here\n\n');
    expect(() => openSecretSealer(config())).toThrow(`${keyFile} holds no key`);
  });

  it('a sealer of the file follows it: a new key put first seals from the next seal on, the old key still opens', () => {
    const warnings: string[] = [];
    loadKeyRing(config());
    const sealer = new KeyFileSecretSealer(keyFile, (message) => warnings.push(message));
    const oldId = sealer.currentKeyId;
    const sealedBefore = sealer.seal('whsec_before', BINDING);
    const newKey = randomBytes(32);
    prependKeyToFile(keyFile, newKey);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    // What another process sealed under the new key (rotate-encryption-key resealing) opens here.
    const resealed = new AesGcmSecretSealer([newKey]).seal('whsec_before', BINDING);
    expect(sealer.open(resealed, BINDING)).toBe('whsec_before');
    expect(sealer.currentKeyId).toBe(encryptionKeyId(newKey));
    expect(sealer.seal('whsec_after', BINDING).keyId).toBe(encryptionKeyId(newKey));
    expect(sealer.holdsKey(oldId)).toBe(true);
    expect(sealer.open(sealedBefore, BINDING)).toBe('whsec_before');
    expect(warnings).toEqual([]);
  });

  it('a sealer of the file keeps the keys it has when the file turns bad, and says so once', () => {
    const warnings: string[] = [];
    const sealer = openSecretSealer(config(), { onWarning: (message) => warnings.push(message) })!;
    const id = sealer.currentKeyId;
    chmodSync(keyFile, 0o644);
    expect(sealer.seal('whsec_x', BINDING).keyId).toBe(id);
    expect(sealer.seal('whsec_y', BINDING).keyId).toBe(id);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cannot be read again');
    expect(warnings[0]).toContain('the keys read before stay in use');
    chmodSync(keyFile, 0o600);
    rmSync(keyFile);
    expect(sealer.currentKeyId).toBe(id);
    expect(warnings).toHaveLength(2);
  });
});

function runNode(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`the child exited ${code}: ${err}`))));
  });
}
