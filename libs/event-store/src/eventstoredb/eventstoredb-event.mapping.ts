/**
 * Pure conversions between the port's types and @eventstore/db-client's (6.x) types. No I/O here,
 * so everything is unit-testable without a server.
 */
import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  isSystemStream,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type CurrentRevision,
  type EventData,
  type JSONType,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { serializeEvents } from '../append.validation';
import { InvalidAppendError } from '../event-store.errors';
import {
  START_POSITION,
  type ExpectedRevision,
  type EventToAppend,
  type GlobalPosition,
  type RecordedEvent,
  type SubscriptionFilter,
} from '../event-store.port';

/**
 * Checkpoints live in ordinary user streams named `checkpoint-<name>` (streams starting with `$`
 * are reserved for the server). readAll, subscribeToAll and headPosition never show them, like the
 * SQLite store whose checkpoints are a separate table.
 */
export const CHECKPOINT_STREAM_PREFIX = 'checkpoint-';

/**
 * Untrusted payloads live in streams named `payload-<key>` (EventStoreDbPayloadStore), read only
 * through payloads(). No reader of events ever sees them: $all keeps a removed payload's body until
 * a scavenge, and the relay, the projector and CLI replays must not carry it anywhere.
 */
export const PAYLOAD_STREAM_PREFIX = 'payload-';

/**
 * Old servers (before 22.6) report this "no position" marker (u64 max) for events read from a
 * stream rather than from $all.
 */
const UNKNOWN_POSITION = 18446744073709551615n;

/** The port's expected revision as the client's `expectedRevision` option. */
export function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (typeof expected !== 'bigint') {
        throw new InvalidAppendError(`expected revision must be 'any', 'no_stream', 'stream_exists' or a bigint`);
      }
      // -1n is "the stream has no events", as in the SQLite store.
      if (expected === -1n) return NO_STREAM;
      if (expected < -1n) throw new InvalidAppendError(`expected revision must be >= -1, got ${expected}`);
      return expected;
  }
}

/** WrongExpectedVersionError.actualVersion ('no_stream' | bigint) as the port's actualRevision. */
export function toActualRevision(current: CurrentRevision): bigint {
  return current === NO_STREAM ? -1n : current;
}

export { satisfiesExpected } from '../event-store.port';

/**
 * Validates and sizes the events as the SQLite store does (serializeEvents: UUID ids, no id twice
 * in one append, a type, JSON-serializable data and metadata), refuses what only this adapter
 * refuses, and builds the client's JSON events. Ids are lowercased.
 */
export function toEventData(events: readonly EventToAppend[], maxEventBytes: number): EventData[] {
  return serializeEvents(events, maxEventBytes, assertAccepted).map(({ id, type }, index) =>
    jsonEvent({ id, type, data: events[index].data as JSONType, metadata: events[index].metadata as JSONType }),
  );
}

/** What this adapter refuses beyond the shared checks: $-types (the server's) and JSON that is not an object or array. */
function assertAccepted(event: EventToAppend, id: string): void {
  if (event.type.startsWith('$')) {
    throw new InvalidAppendError(`event ${id} has type ${event.type}: types starting with $ are reserved`);
  }
  assertJsonObject(event.data, id, 'data');
  assertJsonObject(event.metadata, id, 'metadata');
}

export function toGlobalPosition(position: Position): GlobalPosition {
  return { commit: position.commit, prepare: position.prepare };
}

export function toClientPosition(position: GlobalPosition): Position {
  return { commit: position.commit, prepare: position.prepare };
}

/**
 * Where to start reading or subscribing for "after `after`": $all's start for no position or for
 * START_POSITION (-1/-1, which the server's unsigned positions cannot express).
 */
export function readFrom(after: GlobalPosition | undefined): Position | typeof START {
  return after && after.commit >= 0n && after.prepare >= 0n ? toClientPosition(after) : START;
}

/** Events the port never shows: system streams/types ($...) and this adapter's checkpoint and payload streams. */
export function isHiddenEvent(streamId: string, type: string): boolean {
  return (
    isSystemStream(streamId) ||
    type.startsWith('$') ||
    streamId.startsWith(CHECKPOINT_STREAM_PREFIX) ||
    streamId.startsWith(PAYLOAD_STREAM_PREFIX)
  );
}

/** Literal prefix match; no filter means every stream, an empty prefix list means none. */
export function matchesFilter(streamId: string, filter: SubscriptionFilter | undefined): boolean {
  const prefixes = filter?.streamPrefixes;
  if (prefixes === undefined) return true;
  return prefixes.some((prefix) => streamId.startsWith(prefix));
}

/** The $all position of a resolved event: the record's own, else the resolved commit position. */
export function positionOf(resolved: ResolvedEvent | AllStreamResolvedEvent): GlobalPosition | undefined {
  const position = resolved.event?.position;
  if (position && position.commit !== UNKNOWN_POSITION) return toGlobalPosition(position);
  const commit = resolved.commitPosition;
  if (commit !== undefined && commit !== UNKNOWN_POSITION) return { commit, prepare: commit };
  return undefined;
}

/**
 * A resolved event as the port's RecordedEvent, including system events (for reading one stream).
 * An event without a known $all position gets START_POSITION.
 * Undefined for a resolved event without a record (an unresolved link).
 */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const record = resolved.event;
  if (!record) return undefined;
  // Servers before 22.6 give events read from a stream no $all position: such an event is still
  // returned (one old event must not fail a whole read), with START_POSITION as "position unknown".
  const position = positionOf(resolved) ?? START_POSITION;
  return {
    id: record.id,
    streamId: record.streamId,
    revision: record.revision,
    position,
    type: record.type,
    data: record.isJson ? record.data : decodeBinary(record.data),
    metadata: record.metadata instanceof Uint8Array ? decodeBinary(record.metadata) : (record.metadata ?? {}),
    createdAt: record.created,
  };
}

/** Like toRecordedEvent, but undefined for what the port hides (system, checkpoint and payload events). */
export function toVisibleEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const record = resolved.event;
  if (!record || isHiddenEvent(record.streamId, record.type)) return undefined;
  return toRecordedEvent(resolved);
}

/** Data and metadata are objects or arrays; anything else is the caller's bug. */
function assertJsonObject(value: object, id: string, field: string): void {
  if (typeof value !== 'object' || value === null) {
    throw new InvalidAppendError(`event ${id} ${field} must be a JSON object or array`);
  }
}

/** Binary (non-JSON) payloads written by other clients: parsed when they hold JSON, else raw bytes. */
function decodeBinary(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return bytes;
  }
}
