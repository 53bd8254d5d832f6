import { FORWARDS, NO_STREAM, START, WrongExpectedVersionError, type ResolvedEvent } from '@eventstore/db-client';
import type { PayloadAttachment } from '../payload-store.port';
import {
  expiringMetadata,
  payloadMetadataOf,
  payloadStreamOf,
  toBodyEvent,
  toPayloadRecord,
  type PayloadRecord,
  type PayloadStreamMetadata,
} from './eventstoredb-payload.records';
import { collectExistingStream } from './eventstoredb-stream.reader';
import type { EventStoreDbConnection } from './eventstoredb.connection';

/**
 * What a payload stream holds now, as a stream read sees it: its body, its removal marker (the
 * body then hidden by $tb), nothing visible although it exists ($maxAge hid the body: `metadata`
 * says which body and when it expired), or no stream at all.
 */
export type PayloadStreamState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'kept'; readonly body: Extract<PayloadRecord, { kind: 'body' }>; readonly last: bigint }
  | { readonly kind: 'removed'; readonly marker: Extract<PayloadRecord, { kind: 'marker' }> }
  | { readonly kind: 'expired'; readonly metadata: PayloadStreamMetadata };

/** The outcome of writing a body before the events that record it. */
export type PayloadWrite =
  /** This key's stream holds this body (written now, or by an earlier try): append the events, and call expire() beside them. */
  | { readonly kind: 'stored'; expire(): Promise<void> }
  /** This key's stream holds another body: the events must not be appended with this one. */
  | { readonly kind: 'differs' };

/** Reads a payload stream's state (from the leader: a write or a removal decides on it). */
export async function readPayloadState(connection: EventStoreDbConnection, key: string, operation: string): Promise<PayloadStreamState> {
  const stream = payloadStreamOf(key);
  const records = await connection.read(
    operation,
    (client) => client.readStream(stream, { direction: FORWARDS, fromRevision: START, requiresLeader: true }),
    (events: AsyncIterable<ResolvedEvent>) => collectExistingStream(events, toPayloadRecord),
  );
  if (!records) return { kind: 'absent' };
  // The last marker decides (a retried removal may have left two); a body counts only without one.
  let marker: Extract<PayloadRecord, { kind: 'marker' }> | undefined;
  let body: Extract<PayloadRecord, { kind: 'body' }> | undefined;
  for (const record of records) {
    if (record.kind === 'marker') marker = record;
    else body ??= record;
  }
  if (marker) return { kind: 'removed', marker };
  if (body) return { kind: 'kept', body, last: records.at(-1)?.revision ?? body.revision };
  const { metadata } = await connection.call(operation, (client, deadline) =>
    client.getStreamMetadata(stream, { deadline, requiresLeader: true }),
  );
  return { kind: 'expired', metadata: payloadMetadataOf(metadata) };
}

/**
 * Writes a delivery's payload before its events (EventStoreDbAppendWriter): one binary event with
 * "no stream" and an id derived from key and body, so a retry is the server's idempotent write and
 * a different body under the same key is refused instead of overwriting the first.
 */
export class EventStoreDbPayloadWriter {
  constructor(
    private readonly connection: EventStoreDbConnection,
    /** Epoch ms: $maxAge is counted from now. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** Throws (EventStoreUnavailableError when the store failed) before the events are appended. */
  async write(attachment: PayloadAttachment): Promise<PayloadWrite> {
    const event = toBodyEvent(attachment);
    const stream = payloadStreamOf(attachment.key);
    const outcome = await this.connection.call('payload append', async (client, deadline) => {
      try {
        return await client.appendToStream(stream, [event], { expectedRevision: NO_STREAM, deadline, requiresLeader: true });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) return error;
        throw error;
      }
    });
    // Written now: the usual path.
    if (!(outcome instanceof WrongExpectedVersionError) && outcome.success && outcome.position) {
      const writtenAt = this.clock();
      return { kind: 'stored', expire: () => this.expire(attachment, writtenAt) };
    }
    // A retry (the server's idempotent answer) or a conflict: look at what the stream holds.
    const state = await readPayloadState(this.connection, attachment.key, 'payload append');
    switch (state.kind) {
      case 'kept': {
        const writtenAt = state.body.createdAt;
        return state.body.id === event.id ? { kind: 'stored', expire: () => this.expire(attachment, writtenAt) } : { kind: 'differs' };
      }
      case 'removed':
        // Removed already: the events may still be appended (a retry), the payload stays removed.
        return state.marker.bodyId === event.id ? { kind: 'stored', expire: async () => undefined } : { kind: 'differs' };
      case 'expired':
        return state.metadata.payloadEventId === event.id ? { kind: 'stored', expire: async () => undefined } : { kind: 'differs' };
      default:
        return { kind: 'differs' };
    }
  }

  /**
   * Sets $maxAge (counted from when the body was written) so the server expires the body on its own. Failure is not fatal: the delivery is
   * recorded by then or not at all, and the retention sweeper removes the payload at its expiry
   * from the read model either way; $maxAge is the backstop for bodies no event records.
   */
  private async expire(attachment: PayloadAttachment, writtenAt: number): Promise<void> {
    const stream = payloadStreamOf(attachment.key);
    await this.connection.call('payload expiry', (client, deadline) =>
      client.setStreamMetadata(stream, expiringMetadata(attachment, writtenAt), { deadline, requiresLeader: true }),
    );
  }
}
