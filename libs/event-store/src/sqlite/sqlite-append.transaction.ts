import type { SerializedEvent } from '../append.validation';
import { DuplicateEventIdError } from '../event-store.errors';
import { START_POSITION, satisfiesExpected, type AppendResult, type ExpectedRevision, type GlobalPosition } from '../event-store.port';
import type { SqliteEventStatements, StoredEventRef } from './sqlite-event.statements';

export interface AppendOutcome {
  readonly result: AppendResult;
  /** False for conflicts, idempotent retries and empty appends: nothing new to announce. */
  readonly inserted: boolean;
}

/**
 * The body of one append; must run inside an IMMEDIATE transaction. `storePayload` runs only when
 * the events are about to be inserted, and the row it returns goes on the first of them.
 */
export function appendInTransaction(
  queries: SqliteEventStatements,
  streamId: string,
  events: readonly SerializedEvent[],
  expected: ExpectedRevision,
  storePayload?: () => bigint,
): AppendOutcome {
  const existing = events.map((event) => queries.findByEventId(event.id));
  for (const [index, ref] of existing.entries()) {
    if (ref && ref.streamId !== streamId) throw new DuplicateEventIdError(events[index].id, ref.streamId, streamId);
  }
  const refs = existing.filter((ref): ref is StoredEventRef => ref !== undefined);
  if (refs.length > 0 && refs.length === events.length && isIdempotentRetry(refs, expected)) {
    const last = refs[refs.length - 1];
    return { inserted: false, result: appended(last.revision, { commit: last.seq, prepare: last.seq }) };
  }

  const current = queries.lastRevision(streamId);
  if (!satisfiesExpected(expected, current)) {
    return { inserted: false, result: { kind: 'conflict', streamId, expected, actualRevision: current } };
  }
  if (refs.length > 0) {
    const index = existing.findIndex((ref) => ref !== undefined);
    throw new DuplicateEventIdError(events[index].id, streamId, streamId);
  }
  if (events.length === 0) {
    const last = queries.lastEvent(streamId);
    return { inserted: false, result: appended(current, last ? { commit: last.seq, prepare: last.seq } : START_POSITION) };
  }

  const createdAt = Date.now();
  let revision = current;
  let seq = 0n;
  let payloadRow = storePayload ? storePayload() : null;
  for (const event of events) {
    revision += 1n;
    seq = queries.insert(streamId, revision, event, createdAt, payloadRow);
    payloadRow = null;
  }
  return { inserted: true, result: appended(revision, { commit: seq, prepare: seq }) };
}

/**
 * Like EventStoreDB's idempotent writes: the same ids, in the same order, at consecutive revisions
 * where this append would have put them.
 */
function isIdempotentRetry(refs: readonly StoredEventRef[], expected: ExpectedRevision): boolean {
  const first = refs[0].revision;
  if (!refs.every((ref, index) => ref.revision === first + BigInt(index))) return false;
  if (expected === 'no_stream') return first === 0n;
  if (typeof expected === 'bigint') return first === expected + 1n;
  return true;
}

function appended(nextRevision: bigint, position: GlobalPosition): AppendResult {
  return { kind: 'appended', nextRevision, position };
}
