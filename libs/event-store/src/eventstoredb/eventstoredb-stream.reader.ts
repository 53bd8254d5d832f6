import { BACKWARDS, END, FORWARDS, START, StreamNotFoundError, type ResolvedEvent } from '@eventstore/db-client';
import type { ReadStreamOptions, RecordedEvent } from '../event-store.port';
import { assertNonNegativeInteger } from '../store-options.validation';
import { toRecordedEvent } from './eventstoredb-event.mapping';
import type { EventStoreDbConnection } from './eventstoredb.connection';

/**
 * Reads of one stream, all from the leader: callers check expectations and fold state from what
 * they read here (and the appends check the stream they are about to write).
 */
export class EventStoreDbStreamReader {
  constructor(private readonly connection: EventStoreDbConnection) {}

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<readonly RecordedEvent[]> {
    const { fromRevision, maxCount } = options;
    if (maxCount !== undefined) assertNonNegativeInteger('readStream maxCount', maxCount);
    if (maxCount === 0) return [];
    return this.read('readStream', streamId, {
      direction: FORWARDS,
      fromRevision: fromRevision === undefined || fromRevision <= 0n ? START : fromRevision,
      ...(maxCount === undefined ? {} : { maxCount }),
    });
  }

  /** Every event of a stream; [] when it does not exist. */
  readAllOf(streamId: string, operation: string): Promise<RecordedEvent[]> {
    return this.read(operation, streamId, { direction: FORWARDS, fromRevision: START });
  }

  /** One backwards read of one event per stream, in parallel. */
  async streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    const unique = [...new Set(streamIds)];
    const heads = await Promise.all(
      unique.map(async (streamId) => [streamId, (await this.lastEvent(streamId, 'streamHeads'))?.revision ?? -1n] as const),
    );
    return new Map(heads);
  }

  /** The last event of a stream, undefined when the stream does not exist. */
  async lastEvent(streamId: string, operation: string): Promise<RecordedEvent | undefined> {
    const [last] = await this.read(operation, streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    return last;
  }

  async eventAt(streamId: string, revision: bigint, operation: string): Promise<RecordedEvent | undefined> {
    if (revision < 0n) return undefined;
    const [event] = await this.read(operation, streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 });
    return event?.revision === revision ? event : undefined;
  }

  private read(
    operation: string,
    streamId: string,
    options: { direction: typeof FORWARDS | typeof BACKWARDS; fromRevision: bigint | typeof START | typeof END; maxCount?: number },
  ): Promise<RecordedEvent[]> {
    return this.connection.read(
      operation,
      (client) => client.readStream(streamId, { ...options, requiresLeader: true }),
      // All events of the stream read; [] when it does not exist.
      async (resolved: AsyncIterable<ResolvedEvent>) => (await collectExistingStream(resolved, toRecordedEvent)) ?? [],
    );
  }
}

/**
 * A stream's events as `map` answers them (those it answers undefined for left out); undefined when
 * the stream does not exist.
 */
export async function collectExistingStream<T>(
  resolved: AsyncIterable<ResolvedEvent>,
  map: (event: ResolvedEvent) => T | undefined,
): Promise<T[] | undefined> {
  const found: T[] = [];
  try {
    for await (const item of resolved) {
      const value = map(item);
      if (value) found.push(value);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return undefined;
    throw error;
  }
  return found;
}
