import {
  BACKWARDS,
  END,
  FORWARDS,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type ReadPosition,
} from '@eventstore/db-client';
import {
  EventStoreUnavailableError,
  comparePositions,
  type GlobalPosition,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscriptionFilter,
} from '../event-store.port';
import { assertNonNegativeInteger } from '../store-options.validation';
import { filterCheckpoint, type FilterCheckpoint } from './eventstoredb-catch-up.subscription';
import type { ClientRead, ClientSubscription } from './eventstoredb-client.port';
import { matchesFilter, positionOf, readFrom, toClientPosition, toGlobalPosition, toVisibleEvent } from './eventstoredb-event.mapping';
import type { EventStoreDbConnection } from './eventstoredb.connection';

/** Events read backwards per request by headPosition() while skipping system events. */
const HEAD_PAGE_SIZE = 32;

/** Marks the end of a filtered readAll: the server said the subscription caught up. */
const CAUGHT_UP = { caughtUp: true } as const;

/** What a filtered readAll reads from the server: events, filter checkpoints, and the caught-up mark. */
type FilteredItem = AllStreamResolvedEvent | FilterCheckpoint | typeof CAUGHT_UP;

/** One window of a filtered read of $all. */
export interface FilteredWindow<T> {
  readonly found: T[];
  /** The position of the last record accepted (absent when none was). */
  readonly last?: GlobalPosition;
  /** True when the read reached the end of $all rather than `limit`. */
  readonly complete: boolean;
}

/** Reads of $all: pages of visible events, the head, and filtered reads as server-side filtered subscriptions. */
export class EventStoreDbAllReader {
  constructor(
    private readonly connection: EventStoreDbConnection,
    /** Events fetched per request by an unfiltered readAll. */
    private readonly readPageSize: number,
  ) {}

  async readAll(options: ReadAllOptions): Promise<readonly RecordedEvent[]> {
    assertNonNegativeInteger('readAll limit', options.limit);
    this.connection.assertOpen('readAll');
    const prefixes = options.filter?.streamPrefixes?.slice();
    if (options.limit === 0 || prefixes?.length === 0) return [];
    if (prefixes) return this.readAllFiltered(options.after, options.limit, prefixes);

    const found: RecordedEvent[] = [];
    // Exclusive lower bound. readAll's fromPosition is inclusive, so the event at `after` comes
    // back first and is skipped here, as is the last event of the previous page.
    let cursor = options.after;
    for (;;) {
      // One extra event covers the event at `cursor` that is read again.
      const pageSize = Math.min(this.readPageSize, options.limit - found.length + 1);
      const fromPosition: ReadPosition = readFrom(cursor);
      const page = await this.page('readAll', fromPosition, FORWARDS, pageSize);
      let advanced = false;
      for (const resolved of page) {
        const position = positionOf(resolved);
        // Every record of $all has a position; one without cannot be placed, so it is left out.
        if (!position || (cursor && comparePositions(position, cursor) <= 0)) continue;
        cursor = position;
        advanced = true;
        const event = toVisibleEvent(resolved);
        if (!event) continue;
        found.push(event);
        if (found.length === options.limit) return found;
      }
      if (page.length < pageSize || !advanced) return found;
    }
  }

  /**
   * The position of the last visible event: reads $all backwards a page at a time, skipping the
   * system and checkpoint events the server keeps writing ($stats, $metadata, checkpoints).
   */
  async headPosition(): Promise<GlobalPosition | undefined> {
    let cursor: GlobalPosition | undefined;
    for (;;) {
      const page = await this.page('headPosition', cursor ? toClientPosition(cursor) : END, BACKWARDS, HEAD_PAGE_SIZE);
      let advanced = false;
      for (const resolved of page) {
        const position = positionOf(resolved);
        // Backwards reads from a position exclude it; skipping covers either behaviour.
        if (!position || (cursor && comparePositions(position, cursor) >= 0)) continue;
        cursor = position;
        advanced = true;
        if (toVisibleEvent(resolved)) return position;
      }
      if (page.length < HEAD_PAGE_SIZE || !advanced) return undefined;
    }
  }

  /** One page of $all records as they are (system events included). */
  page(
    operation: string,
    fromPosition: ReadPosition,
    direction: typeof FORWARDS | typeof BACKWARDS,
    maxCount: number,
  ): Promise<AllStreamResolvedEvent[]> {
    return this.connection.read(
      operation,
      (client) => client.readAll({ fromPosition, direction, maxCount, resolveLinkTos: false }),
      async (resolved: AsyncIterable<AllStreamResolvedEvent>) => {
        const page: AllStreamResolvedEvent[] = [];
        for await (const event of resolved) page.push(event);
        return page;
      },
    );
  }

  /**
   * A filtered readAll as a server-side filtered catch-up subscription (6.2.1's readAll has no
   * server-side filter: a prefix read from the start would scan all of $all on the client).
   */
  private async readAllFiltered(after: GlobalPosition | undefined, limit: number, prefixes: string[]): Promise<RecordedEvent[]> {
    const filter: SubscriptionFilter = { streamPrefixes: prefixes };
    const window = await this.readFiltered('readAll', after, limit, prefixes, (item) => {
      const event = toVisibleEvent(item);
      return event && matchesFilter(event.streamId, filter) ? event : undefined;
    });
    return window.found;
  }

  /**
   * Records of the streams with these prefixes strictly after `after`, as `accept` takes them
   * (hidden ones included: the payload store reads its own streams here). Ends at `limit` accepted
   * records, when the server says it caught up (23.10 and later), or at the last record of $all as
   * it was when the read began (older servers, through their filter checkpoints); `complete` tells
   * which, `last` is the position of the last record accepted.
   */
  async readFiltered<T>(
    operation: string,
    after: GlobalPosition | undefined,
    limit: number,
    prefixes: string[],
    accept: (item: AllStreamResolvedEvent) => T | undefined,
  ): Promise<FilteredWindow<T>> {
    const [lastRecord] = await this.page(operation, END, BACKWARDS, 1);
    const head = lastRecord ? positionOf(lastRecord) : undefined;
    if (!head || (after && comparePositions(after, head) >= 0)) return { found: [], complete: true };
    return this.connection.read(
      operation,
      (client) => subscriptionAsRead(client.subscribeToAll(filteredFrom(after, prefixes))),
      async (items: AsyncIterable<FilteredItem>) => {
        const found: T[] = [];
        let last: GlobalPosition | undefined;
        for await (const item of items) {
          if ('caughtUp' in item) return { found, last, complete: true };
          const position = 'filterCheckpoint' in item ? item.filterCheckpoint : positionOf(item);
          if (!('filterCheckpoint' in item) && position && (!after || comparePositions(position, after) > 0)) {
            const accepted = accept(item);
            if (accepted !== undefined) {
              found.push(accepted);
              last = position;
            }
            if (found.length === limit) return { found, last, complete: false };
          }
          if (position && comparePositions(position, head) >= 0) return { found, last, complete: true };
        }
        throw new EventStoreUnavailableError(`EventStoreDB ended the filtered read of $all (${operation}) before it caught up`);
      },
    );
  }
}

/**
 * subscribeToAll options from a position: server-side prefix filter (or no system events), with
 * the filter checkpoints pushed into the subscription's stream in order (see FilterCheckpoint).
 */
export function filteredFrom(after: GlobalPosition | undefined, prefixes: string[] | undefined) {
  const checkpointReached = (subscription: { push(chunk: unknown): boolean }, position: { commit: bigint; prepare: bigint }): void => {
    subscription.push(filterCheckpoint(toGlobalPosition(position)));
  };
  return {
    // Exclusive: a catch-up subscription from a position starts with the event after it.
    fromPosition: readFrom(after),
    resolveLinkTos: false,
    filter: prefixes ? streamNameFilter({ prefixes, checkpointReached }) : excludeSystemEvents({ checkpointReached }),
  };
}

/** A subscription read like a stream: 'caughtUp' becomes an item in order, cancel() unsubscribes. */
function subscriptionAsRead(subscription: ClientSubscription): ClientRead<FilteredItem> {
  subscription.on('caughtUp', () => void subscription.push(CAUGHT_UP));
  return {
    [Symbol.asyncIterator]: () => (subscription as AsyncIterable<FilteredItem>)[Symbol.asyncIterator](),
    cancel: () => subscription.unsubscribe(),
    destroy: (error) => subscription.destroy(error),
    readableEnded: false,
  };
}
