import type { Listing } from '@wts/application';
import type { Rejection } from '@wts/domain';
import { orThrow } from '../http/rejection';

/** A listing as the admin API answers it: the page's items under `key`, and `next_cursor` (null on the last page). */
export type ListingResponse<K extends string, T> = { readonly [P in K]: readonly T[] } & { readonly next_cursor: string | null };

/** Awaits a listing use case: its rejection becomes the filter's problem (orThrow), its page the response body. */
export async function listingResponse<K extends string, T>(
  key: K,
  listing: Promise<Listing<T> | Rejection>,
): Promise<ListingResponse<K, T>> {
  const page = orThrow(await listing);
  return { [key]: page.items, next_cursor: page.nextCursor } as ListingResponse<K, T>;
}
