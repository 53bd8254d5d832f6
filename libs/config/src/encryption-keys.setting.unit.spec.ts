import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { ConfigurationError, loadConfig } from './app.config';
import { decodeEncryptionKeys } from './encryption-keys.setting';
import { captureError } from '../../../test/support/thrown-error.assertions';

describe('SECRETS_ENCRYPTION_KEY', () => {
  const first = randomBytes(32);
  const second = randomBytes(32);

  it('given nothing (or only spaces), then no key ring: the embedded default keeps its keys in a file', () => {
    expect(loadConfig({}).secrets.encryptionKeys).toBeUndefined();
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: '  ' }).secrets.encryptionKeys).toBeUndefined();
  });

  it('given one key in base64 (44 characters), then that key', () => {
    const keys = loadConfig({ SECRETS_ENCRYPTION_KEY: first.toString('base64') }).secrets.encryptionKeys;
    expect(keys).toEqual([first]);
  });

  it('given a comma-separated list mixing base64 and base64url (43 characters), then every key, in order, spaces trimmed', () => {
    const value = ` ${first.toString('base64url')} , ${second.toString('base64')}`;
    expect(first.toString('base64url')).toHaveLength(43);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: value }).secrets.encryptionKeys).toEqual([first, second]);
  });

  it.each([
    ['wrong length', randomBytes(16).toString('base64'), 'SECRETS_ENCRYPTION_KEY entry 1 is 16 bytes, not 32'],
    ['wrong length (64 bytes)', randomBytes(64).toString('base64'), 'SECRETS_ENCRYPTION_KEY entry 1 is 64 bytes, not 32'],
    ['not base64', 'this is not a key at all: is it?!', 'SECRETS_ENCRYPTION_KEY entry 1 is not base64 or base64url'],
    ['two alphabets at once', `+${'A'.repeat(41)}_=`, 'SECRETS_ENCRYPTION_KEY entry 1 is not base64 or base64url'],
    ['bits past the last byte', `${'A'.repeat(42)}B=`, 'SECRETS_ENCRYPTION_KEY entry 1 is not base64 or base64url'],
  ])('given a key of %s, then a ConfigurationError naming the entry and how to make one', (_case, value, message) => {
    const error = captureError(() => loadConfig({ SECRETS_ENCRYPTION_KEY: value }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toHaveLength(1);
    expect((error as ConfigurationError).problems[0]).toContain(message);
    expect((error as ConfigurationError).problems[0]).toContain('openssl rand -base64 32');
  });

  it('given an empty entry (a stray comma), then a ConfigurationError naming it', () => {
    const error = captureError(() => loadConfig({ SECRETS_ENCRYPTION_KEY: `${first.toString('base64')},,${second.toString('base64')},` }));
    expect((error as ConfigurationError).problems).toEqual([
      'SECRETS_ENCRYPTION_KEY entry 2 is empty (a stray comma?): give 32-byte keys in base64, separated by commas',
      'SECRETS_ENCRYPTION_KEY entry 4 is empty (a stray comma?): give 32-byte keys in base64, separated by commas',
    ]);
  });

  it('given the same key twice (even once in base64 and once in base64url), then a ConfigurationError naming both entries', () => {
    const error = captureError(() =>
      loadConfig({ SECRETS_ENCRYPTION_KEY: [first.toString('base64'), second.toString('base64'), first.toString('base64url')].join(',') }),
    );
    expect((error as ConfigurationError).problems).toEqual([
      'SECRETS_ENCRYPTION_KEY entry 3 is the same key as SECRETS_ENCRYPTION_KEY entry 1: list each key once',
    ]);
  });

  it('given a bad key among other bad values, then every problem is listed at once, and no key is ever shown', () => {
    const good = first.toString('base64');
    const short = randomBytes(31).toString('base64');
    const error = captureError(() => loadConfig({ PORT: 'x', SECRETS_ENCRYPTION_KEY: `${good},${short}` }));
    expect((error as ConfigurationError).problems.filter((problem) => problem.startsWith('PORT')).length).toBeGreaterThan(0);
    expect(String(error)).toContain('SECRETS_ENCRYPTION_KEY entry 2 is 31 bytes, not 32');
    expect(String(error)).not.toContain(good);
    expect(String(error)).not.toContain(short);
  });

  it('given keys, then the configuration printed or logged whole (JSON, util.inspect) shows how many, never a key', () => {
    const config = loadConfig({ SECRETS_ENCRYPTION_KEY: `${first.toString('base64')},${second.toString('base64url')}` });
    const printed = [JSON.stringify(config), inspect(config, { depth: 10 }), inspect(config.secrets)];
    for (const text of printed) {
      expect(text).toContain('[2 keys, redacted]');
      for (const form of [first.toString('base64'), first.toString('hex'), second.toString('base64url'), second.toString('hex')]) {
        expect(text).not.toContain(form);
      }
      // Buffers would print their bytes: `<Buffer 1f 2a …>` or {"type":"Buffer","data":[…]}.
      expect(text).not.toMatch(/Buffer/);
    }
    expect(JSON.parse(JSON.stringify(loadConfig({}))).secrets).toEqual({});
  });
});

describe('decodeEncryptionKeys (the key file uses it too)', () => {
  it('names each entry by where it was written', () => {
    const problems: string[] = [];
    const key = randomBytes(32);
    const keys = decodeEncryptionKeys(
      [
        { where: '/data/secrets-encryption.key line 1', text: key.toString('base64') },
        { where: '/data/secrets-encryption.key line 3', text: 'nope!' },
      ],
      problems,
    );
    expect(keys).toEqual([key]);
    expect(problems).toEqual([
      '/data/secrets-encryption.key line 3 is not base64 or base64url: a key is 32 random bytes, 44 base64 characters (make one with: openssl rand -base64 32)',
    ]);
  });
});
