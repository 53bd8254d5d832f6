import type { Message, TopicMessages } from 'kafkajs';

/**
 * Sizing produce requests. A broker refuses a record batch above the topic's `max.message.bytes`
 * (MESSAGE_TOO_LARGE), and that is not retriable: resending the same request fails the same way
 * forever. So requests are capped by bytes as well as by count, and a refused request is split.
 */

/** What a record costs besides its key, value and headers (lengths, offsets, attributes, varints). */
const RECORD_OVERHEAD_BYTES = 64;

type Bytes = string | Buffer | null | undefined;
type HeaderValue = Bytes | readonly (string | Buffer)[];

/** The message as a producer takes it (structurally compatible with kafkajs' Message). */
export interface SizedMessage {
  readonly key?: Bytes;
  readonly value: Bytes;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
}

function byteLength(value: Bytes): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.length;
}

/** The bytes a message adds to a produce request: key, value, header names and values, overhead. */
export function messageBytes(message: SizedMessage): number {
  let bytes = RECORD_OVERHEAD_BYTES + byteLength(message.key) + byteLength(message.value);
  for (const [name, raw] of Object.entries(message.headers ?? {})) {
    const values = Array.isArray(raw) ? (raw as readonly (string | Buffer)[]) : [raw as Bytes];
    for (const value of values) bytes += byteLength(name) + byteLength(value) + 8;
  }
  return bytes;
}

/**
 * Consecutive chunks, in order, each of at most `maxCount` items and `maxBytes` bytes — except
 * that a chunk always holds at least one item (a single item larger than `maxBytes` goes alone).
 */
export function chunkBySize<T>(
  items: readonly T[],
  sizeOf: (item: T) => number,
  maxBytes: number,
  maxCount = Number.POSITIVE_INFINITY,
): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (chunk.length > 0 && (chunk.length >= maxCount || bytes + size > maxBytes)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(item);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** The broker's error types that mean "this request is too large": resending it as is can never work. */
const TOO_LARGE_TYPES: ReadonlySet<string> = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/**
 * Whether a produce failed because a record batch exceeds the topic's (or broker's) size limit.
 * kafkajs may wrap the broker's error (`cause`, `originalError`, a list of `errors`).
 */
export function isMessageTooLarge(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const candidate = error as { type?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
  if (typeof candidate.type === 'string' && TOO_LARGE_TYPES.has(candidate.type)) return true;
  if (isMessageTooLarge(candidate.cause, depth + 1) || isMessageTooLarge(candidate.originalError, depth + 1)) return true;
  return Array.isArray(candidate.errors) && candidate.errors.some((nested) => isMessageTooLarge(nested, depth + 1));
}

/** Messages per topic, each list in the order of the store (kafkajs keeps it per partition). */
export function groupByTopic(batch: readonly { readonly topic?: string; readonly message?: Message }[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const entry of batch) {
    if (!entry.topic || !entry.message) continue;
    const list = byTopic.get(entry.topic) ?? [];
    list.push(entry.message);
    byTopic.set(entry.topic, list);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
