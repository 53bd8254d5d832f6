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
    // Not the digest of a secret a caller could send: the empty one, or the prefix alone.
    for (const guess of ['', 'whsec_', 'decoy']) expect(secretMatchesDigest(guess, DECOY_DIGEST)).toBe(false);
    expect(DECOY_DIGEST).toBe(digestSecret('whsec_decoy-for-unknown-endpoints'));
  });
});

/**
 * The verdict must come from `crypto.timingSafeEqual` on the two raw 32-byte digests, never from
 * `===` on strings (whose time depends on the first differing character). Spied on through the
 * module object, so replacing the call with a string comparison fails these tests.
 */
describe('secretMatchesDigest compares in constant time', () => {
  /** The module object the code under test calls through (not an ES namespace copy). */
  const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  const digest = digestSecret(SECRET);
  let spy: jest.SpyInstance<boolean, Parameters<typeof crypto.timingSafeEqual>>;

  beforeEach(() => {
    spy = jest.spyOn(crypto, 'timingSafeEqual');
  });

  afterEach(() => {
    spy.mockRestore();
  });

  it('decides with exactly one timingSafeEqual of two 32-byte digests, for a match and a mismatch', () => {
    expect(secretMatchesDigest(SECRET, digest)).toBe(true);
    expect(secretMatchesDigest(SECRET.slice(0, -1) + 'R', digest)).toBe(false);
    expect(spy).toHaveBeenCalledTimes(2);
    for (const [presented, expected] of spy.mock.calls) {
      expect(Buffer.isBuffer(presented) && Buffer.isBuffer(expected)).toBe(true);
      expect([(presented as Buffer).length, (expected as Buffer).length]).toEqual([32, 32]);
    }
    expect((spy.mock.calls[0][1] as Buffer).toString('hex')).toBe(digest);
  });

  it("returns timingSafeEqual's verdict, whatever the strings say", () => {
    spy.mockReturnValueOnce(false);
    expect(secretMatchesDigest(SECRET, digest)).toBe(false);
    spy.mockReturnValueOnce(true);
    expect(secretMatchesDigest('whsec_wrong', digest)).toBe(true);
  });

  it('does the same comparison work for a digest of the wrong length, and still says no', () => {
    spy.mockReturnValue(true);
    expect(secretMatchesDigest(SECRET, 'abcd')).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.calls[0].map((buffer) => (buffer as Buffer).length)).toEqual([32, 32]);
  });
});
