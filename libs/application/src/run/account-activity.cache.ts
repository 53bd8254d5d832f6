import { ACCOUNT_CATALOG_STREAM, assertNever, type AccountCatalogEvent } from '@wts/contracts';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { StreamHistoryCache } from './stream-history.cache';

/**
 * The catalog's history as a chain: each event that sets an account's activity links to the one
 * before, so a state per event costs one link (not a copy of every account).
 */
interface ActivityLink {
  readonly accountId: string;
  readonly active: boolean;
  readonly previous: ActivityLink | null;
}

function evolveActivity(link: ActivityLink | null, event: AccountCatalogEvent): ActivityLink | null {
  switch (event.type) {
    case 'AccountConnected':
      return { accountId: event.data.accountId, active: true, previous: link };
    case 'AccountUpdated':
      return event.data.active === undefined ? link : { accountId: event.data.accountId, active: event.data.active, previous: link };
    case 'PrimaryAccountChanged':
      return link;
    default:
      return assertNever(event);
  }
}

/**
 * Whether an account was active at a given place in $all: what a release or a re-dispatch judges a
 * held delivery's trigger account on (as things stand then, not as at acceptance). The catalog is
 * one stream, read once and then only past what is known.
 */
export class AccountActivityCache {
  private readonly catalog: StreamHistoryCache<ActivityLink | null, AccountCatalogEvent>;

  constructor(store: EventStore) {
    this.catalog = new StreamHistoryCache(store, { streamOf: () => ACCOUNT_CATALOG_STREAM, initial: null, evolve: evolveActivity });
  }

  /** Active just before `position`; an account not connected by then is not. */
  async activeAt(accountId: string, position: GlobalPosition): Promise<boolean> {
    for (let link = await this.catalog.at(ACCOUNT_CATALOG_STREAM, position); link; link = link.previous) {
      if (link.accountId === accountId) return link.active;
    }
    return false;
  }
}
