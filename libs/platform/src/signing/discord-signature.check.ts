import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { refused, signedSeconds, VALID, withinTolerance } from './signature-check.shared';

/** An Ed25519 signature: 64 bytes, in hex. */
const ED25519_SIGNATURE = /^[0-9a-fA-F]{128}$/;
/** An Ed25519 public key: 32 bytes, in hex (the application's Public Key). */
const ED25519_PUBLIC_KEY = /^[0-9a-fA-F]{64}$/;
/** The DER SubjectPublicKeyInfo of an Ed25519 key, up to its 32 key bytes (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Public keys turned into key objects, kept: a handful of Discord webhooks and the decoy. */
const MAX_CACHED_KEYS = 256;
const keys = new Map<string, KeyObject>();

/** Whether a credential is a Discord public key (64 hex digits); one that is not is replaced by the decoy. */
export function discordTakes(publicKey: string): boolean {
  return ED25519_PUBLIC_KEY.test(publicKey);
}

/**
 * Discord: `X-Signature-Ed25519`, the Ed25519 signature of `<X-Signature-Timestamp><body>` under the
 * application's key, checked against its public key (the webhook's credential) with node:crypto;
 * tests prove the verdicts are `discord-interactions`' (`verifyKey`). Discord signs its timestamp
 * (Unix seconds), held to the tolerance here: a captured request is not good forever.
 */
export function checkDiscord(delivery: SignedDelivery): SignatureVerdict {
  const { discordSignature: signature, discordTimestamp: timestamp } = delivery.headers;
  if (signature === undefined || timestamp === undefined) return refused('missing_signature');
  const seconds = signedSeconds(timestamp);
  if (!ED25519_SIGNATURE.test(signature) || seconds === undefined) return refused('malformed_signature');
  if (!withinTolerance(seconds, delivery.nowMs, delivery.toleranceSeconds)) return refused('timestamp_outside_tolerance');
  const message = Buffer.concat([Buffer.from(timestamp, 'utf8'), delivery.body]);
  return verify(null, message, publicKeyOf(delivery.secret), Buffer.from(signature, 'hex')) ? VALID : refused('signature_mismatch');
}

/** The key object of a raw 32-byte public key given in hex (through its DER SPKI form). */
export function publicKeyOf(hex: string): KeyObject {
  const normalised = hex.toLowerCase();
  const cached = keys.get(normalised);
  if (cached) return cached;
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(normalised, 'hex')]), format: 'der', type: 'spki' });
  if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value as string);
  keys.set(normalised, key);
  return key;
}
