import { SecretUnavailableError, type SecretSealer } from '@wts/application';
import type { SealedSecret } from '@wts/contracts';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** AES-256 takes 32-byte keys; GCM's nonce is 12 bytes (random per seal) and its tag 16. */
export const ENCRYPTION_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** A key's id: a fingerprint that names it in sealed secrets without revealing it. */
export function encryptionKeyId(key: Buffer): string {
  return 'k' + createHash('sha256').update('wts-secrets-encryption-key-id\0').update(key).digest('hex').slice(0, 16);
}

/**
 * AES-256-GCM (node:crypto) under a key ring: the first key seals, every key opens what it sealed,
 * so a key can be rotated (add the new one first, reseal with rotate-encryption-key, then drop the
 * old one) without a moment in which a secret cannot be read.
 */
export class AesGcmSecretSealer implements SecretSealer {
  private readonly keys: ReadonlyMap<string, Buffer>;
  readonly currentKeyId: string;

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('the secrets key ring needs at least one key');
    const ring = new Map<string, Buffer>();
    for (const key of keys) {
      if (key.length !== ENCRYPTION_KEY_BYTES) throw new Error(`an encryption key has ${ENCRYPTION_KEY_BYTES} bytes, not ${key.length}`);
      ring.set(encryptionKeyId(key), Buffer.from(key));
    }
    this.keys = ring;
    this.currentKeyId = encryptionKeyId(keys[0]!);
  }

  holdsKey(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plaintext: string, binding: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.keys.get(this.currentKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(binding, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      keyId: this.currentKeyId,
      iv: iv.toString('base64url'),
      ciphertext: ciphertext.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
    };
  }

  open(sealed: SealedSecret, binding: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new SecretUnavailableError(sealed.keyId, 'unknown_key');
    const iv = Buffer.from(sealed.iv, 'base64url');
    const tag = Buffer.from(sealed.tag, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretUnavailableError(sealed.keyId, 'not_authentic');
    try {
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(binding, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnavailableError(sealed.keyId, 'not_authentic');
    }
  }
}
