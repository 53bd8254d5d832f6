import { NO_STREAM, WrongExpectedVersionError, type AppendExpectedRevision, type EventData } from '@eventstore/db-client';
import { DuplicateEventIdError, InvalidAppendError } from '../event-store.errors';
import {
  EventStoreUnavailableError,
  START_POSITION,
  type AppendResult,
  type EventToAppend,
  type ExpectedRevision,
} from '../event-store.port';
import {
  CHECKPOINT_STREAM_PREFIX,
  satisfiesExpected,
  toActualRevision,
  toEventData,
  toExpectedRevision,
  toGlobalPosition,
} from './eventstoredb-event.mapping';
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
 * the stream is checked here (the server only remembers recent ids in memory).
 */
export class EventStoreDbAppendWriter {
  constructor(
    private readonly connection: EventStoreDbConnection,
    private readonly streams: EventStoreDbStreamReader,
    private readonly maxEventBytes: number,
  ) {}

  async append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (typeof streamId !== 'string' || streamId.length === 0) {
      throw new InvalidAppendError('stream id must be a non-empty string');
    }
    if (streamId.startsWith('$')) throw new InvalidAppendError(`stream ${streamId}: names starting with $ are reserved`);
    if (streamId.startsWith(CHECKPOINT_STREAM_PREFIX)) {
      throw new InvalidAppendError(`stream ${streamId}: names starting with ${CHECKPOINT_STREAM_PREFIX} are reserved for checkpoints`);
    }
    const data = toEventData(events, this.maxEventBytes);
    const expectedRevision = toExpectedRevision(expected);
    // The server answers an empty append on a missing stream with "no_stream", which this client
    // reports as revision 0: check the expectation by reading instead (nothing is written anyway).
    if (data.length === 0) return this.checkExpected(streamId, expected);
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
