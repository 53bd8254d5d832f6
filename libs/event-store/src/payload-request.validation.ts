import { InvalidAppendError } from './event-store.errors';
import type { PayloadAttachment, PayloadRemoval } from './payload-store.port';

/** The most keys one remove() takes: one transaction's worth, and the size of one PayloadsRemoved event. */
export const MAX_PAYLOAD_REMOVAL_KEYS = 1000;

const FORMATS: readonly string[] = ['json', 'text'];
const REASONS: readonly string[] = ['expired', 'erased'];

/**
 * Checks an append's payload before any I/O, like the events themselves (serializeEvents): a bad
 * attachment is the caller's bug, refused with InvalidAppendError, never a 503.
 */
export function assertPayloadAttachment(payload: PayloadAttachment): void {
  if (typeof payload.key !== 'string' || payload.key.length === 0) throw new InvalidAppendError('payload key must be a non-empty string');
  if (typeof payload.webhookId !== 'string') throw new InvalidAppendError(`payload ${payload.key}: webhookId must be a string`);
  if (!FORMATS.includes(payload.format)) throw new InvalidAppendError(`payload ${payload.key}: format must be json or text`);
  if (typeof payload.text !== 'string') throw new InvalidAppendError(`payload ${payload.key}: text must be a string`);
  for (const field of ['receivedAt', 'expiresAt'] as const) {
    const value = payload[field];
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new InvalidAppendError(`payload ${payload.key}: ${field} must be a non-negative integer (epoch ms), got ${value}`);
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
