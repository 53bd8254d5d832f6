import { SecretUnavailableError } from '@wts/application';
import type { SealedSecret } from '@wts/contracts';
import { signingSecretBinding } from '@wts/domain';
import { randomBytes } from 'node:crypto';
import { AesGcmSecretSealer, encryptionKeyId } from './aes-gcm-secret.sealer';

const BINDING = signingSecretBinding('whk_SealerTest000000000000', 'sgs_SealerTest000000000000');
const SECRET = 'whsec_' + randomBytes(32).toString('base64');

/** The reason open() gave, or a failure when it opened. */
function refusal(sealer: AesGcmSecretSealer, sealed: SealedSecret, binding = BINDING): SecretUnavailableError {
  try {
    sealer.open(sealed, binding);
  } catch (error) {
    if (error instanceof SecretUnavailableError) return error;
    throw error;
  }
  throw new Error('the sealed secret was opened');
}

/** The same base64url text with one bit of its first byte flipped. */
function flipped(text: string): string {
  const bytes = Buffer.from(text, 'base64url');
  bytes[0] ^= 0x01;
  return bytes.toString('base64url');
}

describe('AesGcmSecretSealer', () => {
  const key = randomBytes(32);
  const sealer = new AesGcmSecretSealer([key]);

  it('opens what it sealed, under the binding it was sealed with', () => {
    const sealed = sealer.seal(SECRET, BINDING);
    expect(sealed.keyId).toBe(encryptionKeyId(key));
    expect(sealer.open(sealed, BINDING)).toBe(SECRET);
    expect(sealer.open(sealer.seal('', BINDING), BINDING)).toBe('');
    expect(sealer.open(sealer.seal('ünïcødé ✓', BINDING), BINDING)).toBe('ünïcødé ✓');
  });

  it('never holds the plaintext in what it seals', () => {
    const sealed = sealer.seal(SECRET, BINDING);
    const stored = JSON.stringify(sealed);
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain(SECRET.slice(6));
    expect(Buffer.from(sealed.ciphertext, 'base64url').toString('utf8')).not.toContain('whsec_');
  });

  it('takes a fresh IV each time: the same secret sealed twice gives two different sealed forms', () => {
    const one = sealer.seal(SECRET, BINDING);
    const two = sealer.seal(SECRET, BINDING);
    expect(one.iv).not.toBe(two.iv);
    expect(one.ciphertext).not.toBe(two.ciphertext);
    expect(one.tag).not.toBe(two.tag);
    expect(Buffer.from(one.iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(one.tag, 'base64url')).toHaveLength(16);
    const ivs = new Set(Array.from({ length: 200 }, () => sealer.seal(SECRET, BINDING).iv));
    expect(ivs.size).toBe(200);
  });

  it('refuses to open under another binding (the secret moved to another webhook or secret id): not_authentic', () => {
    const sealed = sealer.seal(SECRET, BINDING);
    for (const other of [
      signingSecretBinding('whk_AnotherWebhook00000000', 'sgs_SealerTest000000000000'),
      signingSecretBinding('whk_SealerTest000000000000', 'sgs_AnotherSecret000000000'),
      '',
    ]) {
      const error = refusal(sealer, sealed, other);
      expect(error.reason).toBe('not_authentic');
      expect(error.keyId).toBe(sealed.keyId);
    }
  });

  it.each([
    ['ciphertext', (sealed: SealedSecret): SealedSecret => ({ ...sealed, ciphertext: flipped(sealed.ciphertext) })],
    ['ciphertext (cut short)', (sealed: SealedSecret): SealedSecret => ({ ...sealed, ciphertext: sealed.ciphertext.slice(0, 8) })],
    ['tag', (sealed: SealedSecret): SealedSecret => ({ ...sealed, tag: flipped(sealed.tag) })],
    ['tag (cut short)', (sealed: SealedSecret): SealedSecret => ({ ...sealed, tag: sealed.tag.slice(0, 16) })],
    ['iv', (sealed: SealedSecret): SealedSecret => ({ ...sealed, iv: flipped(sealed.iv) })],
    ['iv (too long)', (sealed: SealedSecret): SealedSecret => ({ ...sealed, iv: randomBytes(16).toString('base64url') })],
  ])('refuses a tampered %s: not_authentic, never a wrong plaintext', (_part, tamper) => {
    const error = refusal(sealer, tamper(sealer.seal(SECRET, BINDING)));
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect(error.reason).toBe('not_authentic');
    expect(error.message).not.toContain(SECRET);
  });

  it('refuses a secret sealed under a key it does not hold: unknown_key, naming the key id', () => {
    const elsewhere = new AesGcmSecretSealer([randomBytes(32)]).seal(SECRET, BINDING);
    const error = refusal(sealer, elsewhere);
    expect(error.reason).toBe('unknown_key');
    expect(error.keyId).toBe(elsewhere.keyId);
    expect(error.message).toContain(elsewhere.keyId);
    expect(sealer.holdsKey(elsewhere.keyId)).toBe(false);
    // A key id forged onto a sealed form of this ring is unknown as well.
    expect(refusal(sealer, { ...sealer.seal(SECRET, BINDING), keyId: 'k0000000000000000' }).reason).toBe('unknown_key');
  });

  it('with a ring [new, old]: opens what the old key sealed, seals under the new one', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const sealedByOld = new AesGcmSecretSealer([oldKey]).seal(SECRET, BINDING);
    const ring = new AesGcmSecretSealer([newKey, oldKey]);
    expect(ring.currentKeyId).toBe(encryptionKeyId(newKey));
    expect(ring.holdsKey(encryptionKeyId(oldKey))).toBe(true);
    expect(ring.holdsKey(encryptionKeyId(newKey))).toBe(true);
    expect(ring.open(sealedByOld, BINDING)).toBe(SECRET);
    const resealed = ring.seal(SECRET, BINDING);
    expect(resealed.keyId).toBe(encryptionKeyId(newKey));
    // The old key alone cannot open what the new one sealed; the new key alone cannot open the old form.
    expect(refusal(new AesGcmSecretSealer([oldKey]), resealed).reason).toBe('unknown_key');
    expect(refusal(new AesGcmSecretSealer([newKey]), sealedByOld).reason).toBe('unknown_key');
  });

  it('names a key by a stable fingerprint that does not show the key', () => {
    const id = encryptionKeyId(key);
    expect(id).toMatch(/^k[0-9a-f]{16}$/);
    expect(encryptionKeyId(Buffer.from(key))).toBe(id);
    expect(new AesGcmSecretSealer([key]).currentKeyId).toBe(id);
    expect(encryptionKeyId(randomBytes(32))).not.toBe(id);
    for (const form of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) {
      expect(form).not.toContain(id.slice(1));
      expect(id).not.toContain(form.slice(0, 8));
    }
  });

  it('keeps its own copy of the keys: zeroing the caller’s buffer changes nothing', () => {
    const mine = randomBytes(32);
    const ring = new AesGcmSecretSealer([mine]);
    const sealed = ring.seal(SECRET, BINDING);
    mine.fill(0);
    expect(ring.open(sealed, BINDING)).toBe(SECRET);
  });

  it.each([0, 16, 31, 33, 64])('refuses a key of %i bytes at construction', (bytes) => {
    expect(() => new AesGcmSecretSealer([randomBytes(bytes)])).toThrow(`an encryption key has 32 bytes, not ${bytes}`);
    expect(() => new AesGcmSecretSealer([randomBytes(32), randomBytes(bytes)])).toThrow('an encryption key has 32 bytes');
  });

  it('refuses an empty ring at construction', () => {
    expect(() => new AesGcmSecretSealer([])).toThrow('the secrets key ring needs at least one key');
  });
});
