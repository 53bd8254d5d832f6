import type { SealedSecret } from '@wts/contracts';

/**
 * Keeps signing secrets encrypted at rest (AES-256-GCM): they must be readable to verify a
 * signature, unlike bearer secrets, which are kept as digests. `binding` is authenticated with the
 * ciphertext (the webhook and secret ids), so a sealed secret cannot be moved to another webhook.
 */
export interface SecretSealer {
  /** Seals under the current key. */
  seal(plaintext: string, binding: string): SealedSecret;
  /** Opens a sealed secret under whichever configured key sealed it; throws SecretUnavailableError otherwise. */
  open(sealed: SealedSecret, binding: string): string;
  /** The id (fingerprint) of the key new secrets are sealed under. */
  readonly currentKeyId: string;
  /** Whether a key with this id is configured (it can open what it sealed). */
  holdsKey(keyId: string): boolean;
}

/** The secret cannot be opened: its key is not configured, or the ciphertext or binding was altered. */
export class SecretUnavailableError extends Error {
  constructor(
    readonly keyId: string,
    readonly reason: 'unknown_key' | 'not_authentic',
  ) {
    super(
      reason === 'unknown_key'
        ? `a signing secret is sealed under key ${keyId}, which SECRETS_ENCRYPTION_KEY does not hold`
        : `a signing secret sealed under key ${keyId} failed its authentication check (altered, or bound to another webhook)`,
    );
    this.name = 'SecretUnavailableError';
  }
}
