import type { SecretSealer } from '@wts/application';
import type { SealedSecret } from '@wts/contracts';
import { statSync } from 'node:fs';
import { AesGcmSecretSealer } from './aes-gcm-secret.sealer';
import { keyFileStamp, readKeyFileVersion } from './secrets-key.file';

/**
 * The embedded default's sealer: the key ring of a key file, read again whenever the file has
 * changed — checked (one stat) before sealing and when a sealed secret names a key the ring does
 * not hold. So `rotate-encryption-key --new-key`, which puts a new key first in the file and
 * reseals under it, needs no restart of a running ingress: it seals under the new key from its
 * next seal on, and opens what was resealed. A file that cannot be read again (removed, made
 * readable by others, a bad line) leaves the ring in use as it was, with one warning per version.
 */
export class KeyFileSecretSealer implements SecretSealer {
  private ring: AesGcmSecretSealer;
  private stamp: string;

  constructor(
    readonly file: string,
    private readonly onWarning: (message: string) => void = () => undefined,
  ) {
    const { keys, stamp } = readKeyFileVersion(file);
    this.ring = new AesGcmSecretSealer(keys);
    this.stamp = stamp;
  }

  get currentKeyId(): string {
    this.refresh();
    return this.ring.currentKeyId;
  }

  holdsKey(keyId: string): boolean {
    if (!this.ring.holdsKey(keyId)) this.refresh();
    return this.ring.holdsKey(keyId);
  }

  seal(plaintext: string, binding: string): SealedSecret {
    this.refresh();
    return this.ring.seal(plaintext, binding);
  }

  open(sealed: SealedSecret, binding: string): string {
    if (!this.ring.holdsKey(sealed.keyId)) this.refresh();
    return this.ring.open(sealed, binding);
  }

  private refresh(): void {
    let stamp: string;
    try {
      stamp = keyFileStamp(statSync(this.file));
    } catch (error) {
      this.keepRing(`missing:${(error as NodeJS.ErrnoException).code ?? 'error'}`, describe(error));
      return;
    }
    if (stamp === this.stamp) return;
    try {
      const read = readKeyFileVersion(this.file);
      this.ring = new AesGcmSecretSealer(read.keys);
      this.stamp = read.stamp;
    } catch (error) {
      this.keepRing(stamp, describe(error));
    }
  }

  /** The ring stays as it was; said once for each version of the file that could not be read. */
  private keepRing(stamp: string, reason: string): void {
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.onWarning(
      `the signing secrets' key file ${this.file} changed but cannot be read again (${reason}); the keys read before stay in use`,
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
