import { createHash } from 'node:crypto';
import { DECOY_DIGEST, digestSecret, secretMatchesDigest } from './secret.digest';

const SECRET = 'whsec_' + 'Q'.repeat(43);

describe('digestSecret', () => {
  it('is the SHA-256 of the secret as lower-case hex', () => {
    expect(digestSecret(SECRET)).toBe(createHash('sha256').update(SECRET, 'utf8').digest('hex'));
    expect(digestSecret(SECRET)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never contains the secret', () => {
    expect(digestSecret(SECRET)).not.toContain(SECRET.slice(6));
  });

  it('differs for different secrets', () => {
    expect(digestSecret(SECRET)).not.toBe(digestSecret(SECRET.slice(0, -1) + 'R'));
  });

  it('digests the empty string too', () => {
    expect(digestSecret('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('secretMatchesDigest', () => {
  const digest = digestSecret(SECRET);

  it('matches the secret the digest was made from', () => {
    expect(secretMatchesDigest(SECRET, digest)).toBe(true);
  });

  it('does not match another secret', () => {
    expect(secretMatchesDigest(SECRET.slice(0, -1) + 'R', digest)).toBe(false);
  });

  it('does not match a prefix, an extension or a case change of the secret', () => {
    expect(secretMatchesDigest(SECRET.slice(0, -1), digest)).toBe(false);
    expect(secretMatchesDigest(SECRET + 'Q', digest)).toBe(false);
    expect(secretMatchesDigest(SECRET.toLowerCase(), digest)).toBe(false);
  });

  it('does not match the empty secret', () => {
    expect(secretMatchesDigest('', digest)).toBe(false);
  });

  it('matches the empty secret only against the digest of the empty string', () => {
    expect(secretMatchesDigest('', digestSecret(''))).toBe(true);
  });

  it.each([
    ['an empty digest', ''],
    ['a digest of another length', 'abcd'],
    ['a truncated digest', digestSecret(SECRET).slice(0, 62)],
    ['a digest that is not hex', 'z'.repeat(64)],
  ])('returns false (never throws) for %s', (_case, expected) => {
    expect(secretMatchesDigest(SECRET, expected)).toBe(false);
  });

  it('does not match the decoy digest used for unknown endpoints', () => {
    expect(DECOY_DIGEST).toMatch(/^[0-9a-f]{64}$/);
    expect(secretMatchesDigest(SECRET, DECOY_DIGEST)).toBe(false);
  });
});
