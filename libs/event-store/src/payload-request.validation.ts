import { InvalidAppendError } from './event-store.errors';
import type { PayloadAttachment, PayloadRemoval } from './payload-store.port';

/** The most keys one remove() takes: one transaction's worth, and the size of one PayloadsRemoved event. */
export const MAX_PAYLOAD_REMOVAL_KEYS = 1000;

const FORMATS: readonly string[] = ['json', 'text'];
const REASONS: readonly string[] = ['expired', 'erased'];

/** The latest expiry a payload may have (epoch ms, in 2109): the embedded store orders bodies by expiry in 42 bits. */
export const MAX_PAYLOAD_EXPIRY = 2 ** 42 - 1;

/**
 * Checks an append's payload before any I/O, like the events themselves (serializeEvents): a bad
 * attachment is the caller's bug, refused with InvalidAppendError, never a 503. The payload's key
 * is the id its stream is named by: the stream is `<category><key>`, its category being its name
 * up to and including the first "-" (`delivery-<key>`), so a store finds a payload through its
 * stream.
 */
export function assertPayloadAttachment(streamId: string, payload: PayloadAttachment): void {
  if (typeof payload.key !== 'string' || payload.key.length === 0) throw new InvalidAppendError('payload key must be a non-empty string');
  const dash = streamId.indexOf('-');
  if (dash < 0 || streamId.slice(dash + 1) !== payload.key) {
    throw new InvalidAppendError(`payload ${payload.key}: its stream must be <category>-${payload.key}, got ${streamId}`);
  }
  if (typeof payload.webhookId !== 'string') throw new InvalidAppendError(`payload ${payload.key}: webhookId must be a string`);
  if (!FORMATS.includes(payload.format)) throw new InvalidAppendError(`payload ${payload.key}: format must be json or text`);
  if (typeof payload.text !== 'string') throw new InvalidAppendError(`payload ${payload.key}: text must be a string`);
  for (const field of ['receivedAt', 'expiresAt'] as const) {
    const value = payload[field];
    if (!Number.isSafeInteger(value) || value < 0 || value > MAX_PAYLOAD_EXPIRY) {
      throw new InvalidAppendError(
        `payload ${payload.key}: ${field} must be an integer from 0 to ${MAX_PAYLOAD_EXPIRY} (epoch ms), got ${value}`,
      );
    }
  }
}

/** Checks a remove() request: at most MAX_PAYLOAD_REMOVAL_KEYS non-empty keys, a known reason, an epoch-ms time. */
export function assertPayloadRemoval(keys: readonly string[], removal: PayloadRemoval): void {
  if (keys.length > MAX_PAYLOAD_REMOVAL_KEYS) {
    throw new RangeError(`payload remove takes at most ${MAX_PAYLOAD_REMOVAL_KEYS} keys at once, got ${keys.length}`);
  }
  if (!keys.every((key) => typeof key === 'string' && key.length > 0)) throw new RangeError('payload keys must be non-empty strings');
  if (!REASONS.includes(removal.reason)) throw new RangeError(`payload removal reason must be expired or erased, got ${removal.reason}`);
  if (removal.erasureId !== null && (typeof removal.erasureId !== 'string' || removal.erasureId.length === 0)) {
    throw new RangeError('payload removal erasureId must be a non-empty string or null');
  }
  if (!Number.isSafeInteger(removal.at) || removal.at < 0) {
    throw new RangeError(`payload removal time must be a non-negative integer (epoch ms), got ${removal.at}`);
  }
}
