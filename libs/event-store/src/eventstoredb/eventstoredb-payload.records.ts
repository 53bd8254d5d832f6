/**
 * How a payload lives on EventStoreDB (docs/eventstoredb.md, "Payloads: retention and erasure on
 * EventStoreDB"): one stream `payload-<key>` per key, whose first event is the body and whose
 * last, once removed, is the removal marker. Pure conversions only, so they are unit-testable.
 */
import {
  binaryEvent,
  jsonEvent,
  type AllStreamResolvedEvent,
  type EventData,
  type ResolvedEvent,
  type StreamMetadata,
} from '@eventstore/db-client';
import { createHash } from 'node:crypto';
import type { PayloadAttachment, PayloadRemoval, PayloadRemovalReason, StoredPayload } from '../payload-store.port';
import { PAYLOAD_STREAM_PREFIX } from './eventstoredb-event.mapping';

export const PAYLOAD_EVENT_TYPE = 'PayloadReceived';
export const PAYLOAD_REMOVED_EVENT_TYPE = 'PayloadRemoved';

/** The body event's metadata: what get() answers besides the text. */
interface BodyMetadata {
  readonly format: 'json' | 'text';
  readonly receivedAt: number;
  readonly expiresAt: number;
  readonly webhookId: string;
}

/** The removal marker's data. `bodyId` tells a retried append whether the removed body was its own. */
interface MarkerData {
  readonly reason: PayloadRemovalReason;
  readonly at: number;
  readonly erasureId: string | null;
  readonly bodyId: string;
}

export type PayloadRecord =
  | ({
      readonly kind: 'body';
      readonly id: string;
      readonly revision: bigint;
      readonly text: string;
      /** Epoch ms, the server's: $maxAge counts from it. */
      readonly createdAt: number;
    } & BodyMetadata)
  | ({ readonly kind: 'marker'; readonly id: string; readonly revision: bigint } & MarkerData);

/**
 * Custom stream metadata written beside $maxAge and $tb: which body the stream holds and when it
 * expires, so that a stream whose events $maxAge has hidden still answers "removed, expired at".
 */
export interface PayloadStreamMetadata {
  readonly payloadEventId?: string;
  readonly expiresAt?: number;
}

export function payloadStreamOf(key: string): string {
  return `${PAYLOAD_STREAM_PREFIX}${key}`;
}

export function keyOfPayloadStream(streamId: string): string {
  return streamId.slice(PAYLOAD_STREAM_PREFIX.length);
}

/**
 * The body event's id: a UUID made from a digest of the key, the format and the text. The same
 * payload under the same key always gets the same id (a retried append is the server's idempotent
 * write); another body under the same key gets another id and is refused by "no stream".
 */
export function payloadEventId(attachment: Pick<PayloadAttachment, 'key' | 'format' | 'text'>): string {
  const bytes = createHash('sha256')
    .update(`${attachment.key}\u0000${attachment.format}\u0000`)
    .update(attachment.text, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The body as a binary event: the text's UTF-8 bytes once, without JSON escaping (JSON text keeps every digit). */
/** The attachment was checked by the append (assertPayloadAttachment). */
export function toBodyEvent(attachment: PayloadAttachment): EventData {
  const metadata: BodyMetadata = {
    format: attachment.format,
    receivedAt: attachment.receivedAt,
    expiresAt: attachment.expiresAt,
    webhookId: attachment.webhookId,
  };
  return binaryEvent({
    id: payloadEventId(attachment),
    type: PAYLOAD_EVENT_TYPE,
    data: Buffer.from(attachment.text, 'utf8'),
    metadata: Buffer.from(JSON.stringify(metadata), 'utf8'),
  });
}

export function toMarkerEvent(removal: PayloadRemoval, bodyId: string): EventData {
  const data: MarkerData = { reason: removal.reason, at: removal.at, erasureId: removal.erasureId, bodyId };
  return jsonEvent({ type: PAYLOAD_REMOVED_EVENT_TYPE, data: { ...data } });
}

/**
 * The metadata set right after the body: $maxAge expires it on the server (reads stop showing it;
 * a scavenge then drops it), which also expires the body of an append that failed after it.
 */
export function expiringMetadata(attachment: PayloadAttachment, writtenAt: number): StreamMetadata {
  const maxAge = Math.max(1, Math.ceil((attachment.expiresAt - writtenAt) / 1000));
  return { maxAge, payloadEventId: payloadEventId(attachment), expiresAt: attachment.expiresAt };
}

/**
 * The metadata of a removed payload: $tb hides the body (and makes it scavengeable), and no
 * $maxAge, so the marker itself is kept and the removal keeps its reason and time.
 */
export function removedMetadata(markerRevision: bigint, previous: PayloadStreamMetadata): StreamMetadata {
  return {
    truncateBefore: Number(markerRevision),
    ...(previous.payloadEventId === undefined ? {} : { payloadEventId: previous.payloadEventId }),
    ...(previous.expiresAt === undefined ? {} : { expiresAt: previous.expiresAt }),
  };
}

/** Whether the metadata already hides everything before the marker and lets the marker live. */
export function isRemovedMetadata(metadata: StreamMetadata | undefined, markerRevision: bigint): boolean {
  return metadata?.maxAge === undefined && metadata?.truncateBefore === Number(markerRevision);
}

export function payloadMetadataOf(metadata: StreamMetadata | undefined): PayloadStreamMetadata {
  const payloadEventId = metadata?.payloadEventId;
  const expiresAt = metadata?.expiresAt;
  return {
    ...(typeof payloadEventId === 'string' ? { payloadEventId } : {}),
    ...(typeof expiresAt === 'number' ? { expiresAt } : {}),
  };
}

/** A payload stream's event as a body or a marker; undefined for anything else found there. */
export function toPayloadRecord(resolved: ResolvedEvent | AllStreamResolvedEvent): PayloadRecord | undefined {
  const record = resolved.event;
  if (!record) return undefined;
  if (record.type === PAYLOAD_EVENT_TYPE && !record.isJson) {
    const metadata = parseJsonObject(record.metadata);
    const format = metadata?.format;
    if (format !== 'json' && format !== 'text') return undefined;
    return {
      kind: 'body',
      id: record.id,
      revision: record.revision,
      text: Buffer.from(record.data).toString('utf8'),
      createdAt: record.created.getTime(),
      format,
      receivedAt: numberOr(metadata?.receivedAt, 0),
      expiresAt: numberOr(metadata?.expiresAt, 0),
      webhookId: typeof metadata?.webhookId === 'string' ? metadata.webhookId : '',
    };
  }
  if (record.type === PAYLOAD_REMOVED_EVENT_TYPE && record.isJson) {
    const data = parseJsonObject(record.data);
    const reason = data?.reason;
    if (reason !== 'expired' && reason !== 'erased') return undefined;
    return {
      kind: 'marker',
      id: record.id,
      revision: record.revision,
      reason,
      at: numberOr(data?.at, 0),
      erasureId: typeof data?.erasureId === 'string' ? data.erasureId : null,
      bodyId: typeof data?.bodyId === 'string' ? data.bodyId : '',
    };
  }
  return undefined;
}

export function toStoredPayload(record: PayloadRecord): StoredPayload {
  if (record.kind === 'marker') return { state: 'removed', reason: record.reason, removedAt: record.at, erasureId: record.erasureId };
  return { state: 'kept', format: record.format, text: record.text, receivedAt: record.receivedAt, expiresAt: record.expiresAt };
}

/** Metadata or data as the client hands it back: parsed JSON, or bytes it could not parse. */
function parseJsonObject(value: unknown): Record<string, unknown> | undefined {
  let parsed = value;
  if (value instanceof Uint8Array) {
    try {
      parsed = JSON.parse(Buffer.from(value).toString('utf8'));
    } catch {
      return undefined;
    }
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
