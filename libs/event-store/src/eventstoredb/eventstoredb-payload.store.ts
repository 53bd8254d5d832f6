import { WrongExpectedVersionError } from '@eventstore/db-client';
import { EventStoreUnavailableError, formatPosition, parsePosition, type GlobalPosition } from '../event-store.port';
import type { PayloadRemoval, PayloadScanPage, PayloadStore, ReclaimReport, StoredPayload } from '../payload-store.port';
import { assertNonNegativeInteger } from '../store-options.validation';
import type { EventStoreDbAllReader } from './eventstoredb-all.reader';
import { PAYLOAD_STREAM_PREFIX, positionOf } from './eventstoredb-event.mapping';
import {
  isRemovedMetadata,
  keyOfPayloadStream,
  payloadMetadataOf,
  payloadStreamOf,
  removedMetadata,
  toMarkerEvent,
  toPayloadRecord,
  toStoredPayload,
  type PayloadStreamMetadata,
} from './eventstoredb-payload.records';
import { readPayloadState, type PayloadStreamState } from './eventstoredb-payload.writer';
import type { EventStoreDbConnection } from './eventstoredb.connection';

/** Payload streams read or written at once by get() and remove(): enough to hide round trips, few enough to spare the server. */
const CONCURRENCY = 16;

/** The most keys one remove() takes (the port's bound: one PayloadsRemoved event names them all). */
const MAX_REMOVE_KEYS = 1000;

/** Attempts at one key's removal when another writer changed its stream in between. */
const REMOVE_ATTEMPTS = 3;

/**
 * The payload store on EventStoreDB (docs/eventstoredb.md, "Payloads: retention and erasure on
 * EventStoreDB"). Removal here is logical: reads stop showing the body at once, and the bytes leave
 * the disk only when a scavenge has run over a completed chunk on every node, which the operator
 * schedules (reclaim() cannot start one through 6.2.1's typed API).
 */
export class EventStoreDbPayloadStore implements PayloadStore {
  constructor(
    private readonly connection: EventStoreDbConnection,
    private readonly all: EventStoreDbAllReader,
  ) {}

  async get(keys: readonly string[]): Promise<ReadonlyMap<string, StoredPayload>> {
    const unique = [...new Set(keys)];
    const states = await mapLimited(unique, CONCURRENCY, (key) => readPayloadState(this.connection, key, 'payload get'));
    const found = new Map<string, StoredPayload>();
    unique.forEach((key, index) => {
      const payload = storedOf(states[index]);
      if (payload) found.set(key, payload);
    });
    return found;
  }

  async remove(keys: readonly string[], removal: PayloadRemoval): Promise<number> {
    const unique = [...new Set(keys)];
    if (unique.length > MAX_REMOVE_KEYS) throw new RangeError(`remove takes at most ${MAX_REMOVE_KEYS} keys, got ${unique.length}`);
    assertRemoval(removal);
    const removed = await mapLimited(unique, CONCURRENCY, (key) => this.removeOne(key, removal));
    return removed.filter(Boolean).length;
  }

  /**
   * Always empty on EventStoreDB: nothing indexes payload streams by expiry, and $maxAge already
   * stops reads of a payload at its expiry by itself. The retention sweeper takes the due
   * deliveries from the read model instead (payloadExpiresAt) and calls remove() with them.
   */
  async due(_now: number, limit: number): Promise<readonly string[]> {
    assertNonNegativeInteger('due limit', limit);
    return [];
  }

  /**
   * A window of payload bodies in $all order, read through a server-side stream-name filter from
   * the cursor (an $all position). $all still holds the bodies of removed and expired payloads until
   * a scavenge, so a body that matches is answered only if a read of its stream still keeps it.
   */
  async scan(needle: string, options: { readonly cursor?: string; readonly limit: number }): Promise<PayloadScanPage> {
    assertNonNegativeInteger('scan limit', options.limit);
    const after = options.cursor === undefined ? undefined : parseCursor(options.cursor);
    if (options.limit === 0) return { matches: [], scanned: 0, ...(options.cursor === undefined ? {} : { cursor: options.cursor }) };
    const window = await this.all.readFiltered('payload scan', after, options.limit, [PAYLOAD_STREAM_PREFIX], (item) => {
      const record = toPayloadRecord(item);
      const position = positionOf(item);
      if (record?.kind !== 'body' || !item.event || !position) return undefined;
      return { key: keyOfPayloadStream(item.event.streamId), id: record.id, hit: record.text.toLowerCase().includes(needle) };
    });
    const candidates = window.found.filter((body) => body.hit);
    const current = candidates.length === 0 ? new Map<string, PayloadStreamState>() : await this.statesOf(candidates.map((c) => c.key));
    const matches = candidates
      .filter((body) => {
        const state = current.get(body.key);
        return state?.kind === 'kept' && state.body.id === body.id;
      })
      .map((body) => body.key);
    const cursor = window.complete ? undefined : (window.last ?? after);
    return { matches: [...new Set(matches)], scanned: window.found.length, ...(cursor ? { cursor: formatPosition(cursor) } : {}) };
  }

  /**
   * EventStoreDB gives space back only through a scavenge, which 6.2.1 has no typed call for (only
   * HTTP `POST /admin/scavenge` per node, or the generated operations client): the operator
   * schedules it (docs/eventstoredb.md). So nothing is released here and the answer is incomplete.
   */
  async reclaim(_now: number): Promise<ReclaimReport> {
    return { complete: false, released: 0 };
  }

  /**
   * Appends the marker after the body (expecting the revision read, so two removers never both
   * count), then sets $tb to the marker: the body is hidden and scavengeable, the marker kept.
   * A marker left without its $tb (a failure in between) is completed by the next remove().
   */
  private async removeOne(key: string, removal: PayloadRemoval): Promise<boolean> {
    const stream = payloadStreamOf(key);
    for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt += 1) {
      const state = await readPayloadState(this.connection, key, 'payload remove');
      if (state.kind === 'absent' || (state.kind === 'expired' && state.metadata.payloadEventId === undefined)) return false;
      if (state.kind === 'removed') {
        await this.completeRemoval(stream, state.marker.revision);
        return false;
      }
      const bodyId = state.kind === 'kept' ? state.body.id : (state.metadata.payloadEventId ?? '');
      // An expired stream shows nothing, but its body is revision 0 and no marker follows it.
      const expectedRevision = state.kind === 'kept' ? state.last : 0n;
      const outcome = await this.connection.call('payload remove', async (client, deadline) => {
        try {
          return await client.appendToStream(stream, [toMarkerEvent(removal, bodyId)], {
            expectedRevision,
            deadline,
            requiresLeader: true,
          });
        } catch (error) {
          if (error instanceof WrongExpectedVersionError) return error;
          throw error;
        }
      });
      if (outcome instanceof WrongExpectedVersionError || !outcome.success) continue;
      const previous: PayloadStreamMetadata =
        state.kind === 'kept' ? { payloadEventId: bodyId, expiresAt: state.body.expiresAt } : state.metadata;
      await this.connection.call('payload remove', (client, deadline) =>
        client.setStreamMetadata(stream, removedMetadata(outcome.nextExpectedRevision, previous), { deadline, requiresLeader: true }),
      );
      return true;
    }
    throw new EventStoreUnavailableError(
      `EventStoreDB payload remove ${key}: the stream changed during each of ${REMOVE_ATTEMPTS} attempts; retry later`,
    );
  }

  /** Sets $tb to the marker (and drops $maxAge) unless the stream's metadata already does. */
  private async completeRemoval(stream: string, markerRevision: bigint): Promise<void> {
    await this.connection.call('payload remove', async (client, deadline) => {
      const { metadata } = await client.getStreamMetadata(stream, { deadline, requiresLeader: true });
      if (isRemovedMetadata(metadata, markerRevision)) return;
      await client.setStreamMetadata(stream, removedMetadata(markerRevision, payloadMetadataOf(metadata)), {
        deadline,
        requiresLeader: true,
      });
    });
  }

  private async statesOf(keys: readonly string[]): Promise<ReadonlyMap<string, PayloadStreamState>> {
    const unique = [...new Set(keys)];
    const states = await mapLimited(unique, CONCURRENCY, (key) => readPayloadState(this.connection, key, 'payload scan'));
    return new Map(unique.map((key, index) => [key, states[index]]));
  }
}

/** What get() answers for a stream's state; undefined for "no payload". */
function storedOf(state: PayloadStreamState): StoredPayload | undefined {
  switch (state.kind) {
    case 'kept':
      return toStoredPayload(state.body);
    case 'removed':
      return toStoredPayload(state.marker);
    case 'expired':
      // $maxAge hid the body: removed as expired, at the expiry the metadata recorded.
      return state.metadata.expiresAt === undefined
        ? undefined
        : { state: 'removed', reason: 'expired', removedAt: state.metadata.expiresAt, erasureId: null };
    default:
      return undefined;
  }
}

function assertRemoval(removal: PayloadRemoval): void {
  if (removal.reason !== 'expired' && removal.reason !== 'erased') throw new RangeError(`removal reason must be 'expired' or 'erased'`);
  if (!Number.isFinite(removal.at)) throw new RangeError('removal time must be epoch milliseconds');
  if (removal.erasureId !== null && typeof removal.erasureId !== 'string') throw new RangeError('erasureId must be a string or null');
}

function parseCursor(cursor: string): GlobalPosition {
  try {
    return parsePosition(cursor);
  } catch {
    throw new RangeError(`not a payload scan cursor: ${cursor}`);
  }
}

/** fn over every item, at most `limit` at a time, answers in input order; the first failure rejects. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
