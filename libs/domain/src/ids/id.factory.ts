import { hash } from 'node:crypto';

/**
 * Identifiers: a fixed prefix and base64url (no padding) bytes. Random bytes come in from the
 * caller (no randomness here); derived ids hash what identifies the work.
 */
export const ID_PREFIX = {
  webhook: 'whk_',
  secret: 'whsec_',
  delivery: 'dlv_',
  run: 'run_',
  account: 'acc_',
  routine: 'rtn_',
  apiKey: 'key_',
  apiKeySecret: 'wtk_',
  signingSecret: 'sgs_',
  /** An erasure request (time-ordered: made with timeOrderedId). */
  erasure: 'era_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Minimum random bytes per kind: webhook ids 16+, secrets exactly 32. */
export const ID_RANDOM_BYTES: Record<IdKind, number> = {
  webhook: 16,
  secret: 32,
  delivery: 16,
  run: 16,
  account: 16,
  routine: 16,
  apiKey: 16,
  apiKeySecret: 32,
  signingSecret: 16,
  erasure: 16,
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function idFromBytes(kind: IdKind, bytes: Uint8Array): string {
  if (bytes.length < ID_RANDOM_BYTES[kind]) {
    throw new Error(`${kind} ids need at least ${ID_RANDOM_BYTES[kind]} random bytes`);
  }
  return ID_PREFIX[kind] + Buffer.from(bytes).toString('base64url');
}

/** Base64url characters that carry the time of a time-ordered id: 6 bytes, exactly 8 characters. */
export const TIME_PREFIX_CHARS = 8;

/**
 * An id whose body starts with the 48-bit millisecond time (big-endian) it was made at, then the
 * random bytes (as many as the kind needs). Ids made close in time share their leading characters,
 * so a store's indexes take new ids in a few places instead of all over (fewer pages written per
 * commit); the random part keeps them unguessable and unique.
 */
export function timeOrderedId(kind: IdKind, atMs: number, random: Uint8Array): string {
  if (!Number.isSafeInteger(atMs) || atMs < 0 || atMs >= 2 ** 48) throw new Error(`not a millisecond time for an id: ${atMs}`);
  if (random.length < ID_RANDOM_BYTES[kind]) throw new Error(`${kind} ids need at least ${ID_RANDOM_BYTES[kind]} random bytes`);
  const bytes = Buffer.allocUnsafe(6 + random.length);
  bytes.writeUIntBE(atMs, 0, 6);
  bytes.set(random, 6);
  return ID_PREFIX[kind] + bytes.toString('base64url');
}

/** True when `value` has the prefix of `kind` and a base64url body of plausible length. */
export function isWellFormedId(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIX[kind];
  if (!value.startsWith(prefix)) return false;
  const body = value.slice(prefix.length);
  return body.length >= 16 && body.length <= 128 && BASE64URL.test(body);
}

/** SHA-256 over each part as `<length>:<part>` (length in UTF-16 units, text as UTF-8), in one call. */
function digest(...parts: string[]): Buffer {
  let framed = '';
  for (const part of parts) framed += `${part.length}:${part}`;
  return hash('sha256', framed, 'buffer');
}

/**
 * The delivery id for an idempotency key: the same webhook, key and generation always give the
 * same id, so "append with stream must not exist" makes concurrent repeats collapse into one.
 * A generation is bumped only when the previous one fell out of the retention window.
 */
export function deliveryIdForIdempotencyKey(webhookId: string, key: string, generation: number): string {
  return idFromBytes('delivery', digest('delivery', webhookId, key, String(generation)).subarray(0, 18));
}

/**
 * The id of the index stream of an idempotency key (its generations): a digest of the webhook and
 * the key, so the key itself (caller's text) never becomes part of a stream name.
 */
export function idempotencyIndexId(webhookId: string, key: string): string {
  return digest('idempotency-index', webhookId, key).subarray(0, 18).toString('base64url');
}

/**
 * The run id is fixed at acceptance and derived from the delivery: one delivery, one run. It starts
 * with the delivery id's first characters (the time of a time-ordered id, so runs made together are
 * stored together too), then a digest of the whole delivery id.
 */
export function runIdForDelivery(deliveryId: string): string {
  const body = deliveryId.startsWith(ID_PREFIX.delivery) ? deliveryId.slice(ID_PREFIX.delivery.length) : deliveryId;
  const timePart = BASE64URL.test(body) ? body.slice(0, TIME_PREFIX_CHARS) : '';
  return ID_PREFIX.run + timePart + digest('run', deliveryId).subarray(0, 18).toString('base64url');
}

/** A deterministic UUID (version 8, RFC 9562 custom) for events whose identity is derived. */
export function derivedEventId(...parts: string[]): string {
  const bytes = digest('event', ...parts).subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
