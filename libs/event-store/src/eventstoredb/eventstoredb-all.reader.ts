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
   * server-side filter: a prefix read from the start would scan all of $all on the client). Ends at
   * `limit`, when the server says it caught up (23.10 and later), or at the last record of $all as
   * it was when the read began (older servers, through their filter checkpoints).
   */
  private async readAllFiltered(after: GlobalPosition | undefined, limit: number, prefixes: string[]): Promise<RecordedEvent[]> {
    const [last] = await this.page('readAll', END, BACKWARDS, 1);
    const head = last ? positionOf(last) : undefined;
    if (!head || (after && comparePositions(after, head) >= 0)) return [];
    const filter: SubscriptionFilter = { streamPrefixes: prefixes };
    return this.connection.read(
      'readAll',
      (client) => subscriptionAsRead(client.subscribeToAll(filteredFrom(after, prefixes))),
      async (items: AsyncIterable<FilteredItem>) => {
        const found: RecordedEvent[] = [];
        for await (const item of items) {
          if ('caughtUp' in item) return found;
          const position = 'filterCheckpoint' in item ? item.filterCheckpoint : positionOf(item);
          if (!('filterCheckpoint' in item) && position && (!after || comparePositions(position, after) > 0)) {
            const event = toVisibleEvent(item);
            if (event && matchesFilter(event.streamId, filter)) found.push(event);
            if (found.length === limit) return found;
          }
          if (position && comparePositions(position, head) >= 0) return found;
        }
        throw new EventStoreUnavailableError('EventStoreDB ended the filtered read of $all before it caught up');
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
