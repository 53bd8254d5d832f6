import { NO_STREAM, WrongExpectedVersionError, type AppendExpectedRevision, type EventData } from '@eventstore/db-client';
import { assertStreamId } from '../append.validation';
import { DuplicateEventIdError, InvalidAppendError } from '../event-store.errors';
import {
  EventStoreUnavailableError,
  START_POSITION,
  type AppendResult,
  type EventToAppend,
  type ExpectedRevision,
} from '../event-store.port';
import { assertPayloadAttachment } from '../payload-request.validation';
import type { AppendOptions, PayloadAttachment } from '../payload-store.port';
import {
  CHECKPOINT_STREAM_PREFIX,
  PAYLOAD_STREAM_PREFIX,
  satisfiesExpected,
  toActualRevision,
  toEventData,
  toExpectedRevision,
  toGlobalPosition,
} from './eventstoredb-event.mapping';
import type { EventStoreDbPayloadWriter } from './eventstoredb-payload.writer';
import type { EventStoreDbStreamReader } from './eventstoredb-stream.reader';
import type { EventStoreDbConnection } from './eventstoredb.connection';

/**
 * How often an append with 'any' or 'stream_exists' re-reads the stream when another writer
 * appended between its read and its append.
 */
const LOOSE_APPEND_ATTEMPTS = 5;

/**
 * Appends, to the leader. Conflicts are values (WrongExpectedVersionError). Idempotent retries
 * with an exact expectation are the server's own idempotent writes; with 'any' and 'stream_exists'
 * the stream is checked here (the server only remembers recent ids in memory). A payload is
 * appended to its own stream just before the events (EventStoreDbPayloadWriter): never after, so no
 * recorded delivery lacks its payload; a failure in between leaves a body that $maxAge expires.
 */
export class EventStoreDbAppendWriter {
  constructor(
    private readonly connection: EventStoreDbConnection,
    private readonly streams: EventStoreDbStreamReader,
    private readonly maxEventBytes: number,
    private readonly payloads: EventStoreDbPayloadWriter,
  ) {}

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    assertStreamId(streamId);
    if (streamId.startsWith('$')) throw new InvalidAppendError(`stream ${streamId}: names starting with $ are reserved`);
    if (streamId.startsWith(CHECKPOINT_STREAM_PREFIX)) {
      throw new InvalidAppendError(`stream ${streamId}: names starting with ${CHECKPOINT_STREAM_PREFIX} are reserved for checkpoints`);
    }
    if (streamId.startsWith(PAYLOAD_STREAM_PREFIX)) {
      throw new InvalidAppendError(`stream ${streamId}: names starting with ${PAYLOAD_STREAM_PREFIX} are reserved for payloads`);
    }
    const data = toEventData(events, this.maxEventBytes);
    // Refused before anything is written (a payload included).
    toExpectedRevision(expected);
    if (options.payload) assertPayloadAttachment(streamId, options.payload);
    // The server answers an empty append on a missing stream with "no_stream", which this client
    // reports as revision 0: check the expectation by reading instead (nothing is written anyway,
    // so neither is a payload).
    if (data.length === 0) return this.checkExpected(streamId, expected);
    if (options.payload) return this.appendWithPayload(streamId, data, expected, options.payload);
    return this.appendEvents(streamId, data, expected);
  }

  /**
   * The body first; then its $maxAge beside the events. When the body cannot be written the
   * events are not appended (the caller answers 503). Another body already under the key is a
   * conflict when the events' stream shows one (a racing request recorded its delivery), and
   * otherwise unavailable: the other writer may still record it, and a retry sees which.
   */
  private async appendWithPayload(
    streamId: string,
    data: EventData[],
    expected: ExpectedRevision,
    payload: PayloadAttachment,
  ): Promise<AppendResult> {
    const written = await this.payloads.write(payload);
    if (written.kind === 'differs') {
      const current = (await this.streams.lastEvent(streamId, 'append'))?.revision ?? -1n;
      if (!satisfiesExpected(expected, current)) return { kind: 'conflict', streamId, expected, actualRevision: current };
      throw new EventStoreUnavailableError(
        `EventStoreDB append to ${streamId}: another payload is stored under key ${payload.key} and no event records it yet; retry later`,
      );
    }
    const [events] = await Promise.allSettled([this.appendEvents(streamId, data, expected), written.expire()]);
    if (events.status === 'rejected') throw events.reason;
    return events.value;
  }

  private async appendEvents(streamId: string, data: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    const expectedRevision = toExpectedRevision(expected);
    if (expected === 'any' || expected === 'stream_exists') return this.appendLoose(streamId, data, expected);

    const outcome = await this.appendExact(streamId, data, expectedRevision);
    if (outcome.kind === 'conflict') return { kind: 'conflict', streamId, expected, actualRevision: outcome.actualRevision };
    return outcome;
  }

  /** An append with an exact expectation ('no_stream' or a revision), sent to the leader. */
  private async appendExact(
    streamId: string,
    data: EventData[],
    expectedRevision: AppendExpectedRevision,
  ): Promise<AppendResult | { readonly kind: 'conflict'; readonly actualRevision: bigint }> {
    const outcome = await this.connection.call('append', async (client, deadline) => {
      try {
        return await client.appendToStream(streamId, data, { expectedRevision, deadline, requiresLeader: true });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) return error;
        throw error;
      }
    });
    if (outcome instanceof WrongExpectedVersionError) return { kind: 'conflict', actualRevision: toActualRevision(outcome.actualVersion) };
    if (!outcome.success) {
      // Only with throwOnAppendFailure=false in the connection string; the batch-append path then
      // misreports the current revision, so read it.
      const last = await this.streams.lastEvent(streamId, 'append');
      return { kind: 'conflict', actualRevision: last?.revision ?? -1n };
    }
    // An idempotent retry comes back without a position: use the one of the original last event.
    const position = outcome.position
      ? toGlobalPosition(outcome.position)
      : ((await this.streams.eventAt(streamId, outcome.nextExpectedRevision, 'append'))?.position ?? START_POSITION);
    return { kind: 'appended', nextRevision: outcome.nextExpectedRevision, position };
  }

  /**
   * 'any' and 'stream_exists': the server recognises a retry of these only from an in-memory cache
   * of recent ids (lost on restart and leader change). So read the stream from the leader, answer
   * a retry (every id in order at consecutive revisions) as the original append, refuse a partial
   * hit with DuplicateEventIdError (as the SQLite store does), and otherwise append expecting the
   * revision just read, re-reading if another writer came in between.
   */
  private async appendLoose(streamId: string, data: EventData[], expected: 'any' | 'stream_exists'): Promise<AppendResult> {
    for (let attempt = 0; attempt < LOOSE_APPEND_ATTEMPTS; attempt += 1) {
      const existing = await this.streams.readAllOf(streamId, 'append');
      const current = existing.at(-1)?.revision ?? -1n;
      const byId = new Map(existing.map((event) => [event.id.toLowerCase(), event]));
      const hits = data.map((event) => byId.get(event.id.toLowerCase()));
      const first = hits[0];
      if (first && hits.every((hit, index) => hit?.revision === first.revision + BigInt(index))) {
        const last = hits[hits.length - 1] ?? first;
        return { kind: 'appended', nextRevision: last.revision, position: last.position };
      }
      if (!satisfiesExpected(expected, current)) return { kind: 'conflict', streamId, expected, actualRevision: current };
      const index = hits.findIndex((hit) => hit !== undefined);
      if (index >= 0) throw new DuplicateEventIdError(data[index].id, streamId, streamId);
      const outcome = await this.appendExact(streamId, data, current === -1n ? NO_STREAM : current);
      if (outcome.kind !== 'conflict') return outcome;
    }
    throw new EventStoreUnavailableError(
      `EventStoreDB append to ${streamId}: the stream changed during each of ${LOOSE_APPEND_ATTEMPTS} attempts; retry later`,
    );
  }

  private async checkExpected(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.streams.lastEvent(streamId, 'append');
    const current = last?.revision ?? -1n;
    if (!satisfiesExpected(expected, current)) return { kind: 'conflict', streamId, expected, actualRevision: current };
    return { kind: 'appended', nextRevision: current, position: last?.position ?? START_POSITION };
  }
}
