import { StreamCategories } from '@wts/contracts';
import { comparePositions, type EventStore, type GlobalPosition, type RecordedEvent, type SubscriptionFilter } from '@wts/event-store';

/** `--category` names → stream-name prefixes (a category is the part before the first dash). */
export const CATEGORY_PREFIXES: Readonly<Record<string, string>> = {
  delivery: StreamCategories.delivery,
  webhook: StreamCategories.webhook,
  run: StreamCategories.run,
  routine: StreamCategories.routine,
  parked: StreamCategories.parked,
  'account-catalog': StreamCategories.accountCatalog,
};

export const CATEGORY_NAMES: readonly string[] = Object.keys(CATEGORY_PREFIXES);

/** The category prefixes for `names`; the unknown ones are reported, not guessed at. */
export function categoryPrefixes(names: readonly string[]): { readonly prefixes: string[]; readonly unknown: string[] } {
  const prefixes: string[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const prefix = CATEGORY_PREFIXES[name];
    if (prefix === undefined) unknown.push(name);
    else if (!prefixes.includes(prefix)) prefixes.push(prefix);
  }
  return { prefixes, unknown };
}

/**
 * Which events a replay reads: streams by exact name and categories by prefix (a union: no
 * stream and no category means every stream), intersected with a position range and a time range
 * on the event's created time (`since` inclusive, `until` exclusive). The position range starts at
 * `fromPosition` (inclusive) or strictly after `afterPosition` (exclusive: how an interrupted
 * replay resumes, exact even where several events share a commit position), and ends at
 * `toPosition` (inclusive).
 */
export interface EventSelection {
  readonly streams: readonly string[];
  readonly categoryPrefixes: readonly string[];
  readonly fromPosition?: GlobalPosition;
  readonly afterPosition?: GlobalPosition;
  readonly toPosition?: GlobalPosition;
  readonly since?: Date;
  readonly until?: Date;
}

/** The store-side filter: every named stream and category as a prefix; exact names are checked after. */
export function storeFilter(selection: Pick<EventSelection, 'streams' | 'categoryPrefixes'>): SubscriptionFilter | undefined {
  if (selection.streams.length === 0 && selection.categoryPrefixes.length === 0) return undefined;
  return { streamPrefixes: [...selection.categoryPrefixes, ...selection.streams] };
}

export function matchesStream(selection: Pick<EventSelection, 'streams' | 'categoryPrefixes'>, streamId: string): boolean {
  if (selection.streams.length === 0 && selection.categoryPrefixes.length === 0) return true;
  return selection.streams.includes(streamId) || selection.categoryPrefixes.some((prefix) => streamId.startsWith(prefix));
}

export function matchesTime(selection: Pick<EventSelection, 'since' | 'until'>, createdAt: Date): boolean {
  const time = createdAt.getTime();
  if (selection.since && time < selection.since.getTime()) return false;
  if (selection.until && time >= selection.until.getTime()) return false;
  return true;
}

export interface ScannedBatch {
  /** The selected events of this batch, in global order. */
  readonly events: readonly RecordedEvent[];
  /** Events read from the store (after the stream filter) in this batch. */
  readonly scanned: number;
  /** The last position read: a replay interrupted after this batch resumes after it. */
  readonly lastPosition: GlobalPosition;
}

/** The position just before `position` in the embedded store's dense order; undefined at the start. */
function before(position: GlobalPosition): GlobalPosition | undefined {
  return position.commit <= 0n ? undefined : { commit: position.commit - 1n, prepare: position.prepare > 0n ? position.prepare - 1n : 0n };
}

/**
 * Reads $all in batches of `batchSize` up to `upTo` (the head when the replay started, or the
 * selection's `toPosition` if lower), yielding the selected events of each batch: memory stays
 * bounded by one batch whatever the size of the store.
 */
export async function* scanSelection(
  store: EventStore,
  selection: EventSelection,
  options: { readonly batchSize: number; readonly upTo: GlobalPosition },
): AsyncGenerator<ScannedBatch> {
  const filter = storeFilter(selection);
  // readAll is exclusive of `after`: exact for --after-position; for the inclusive --from-position,
  // read from just before it and drop what precedes it below.
  let after = selection.afterPosition ?? (selection.fromPosition ? before(selection.fromPosition) : undefined);
  for (;;) {
    const batch = await store.readAll({ after, limit: options.batchSize, filter });
    if (batch.length === 0) return;
    const events: RecordedEvent[] = [];
    let scanned = 0;
    let last: GlobalPosition | undefined;
    let reachedEnd = false;
    for (const event of batch) {
      if (comparePositions(event.position, options.upTo) > 0) {
        reachedEnd = true;
        break;
      }
      scanned += 1;
      last = event.position;
      if (selection.fromPosition && comparePositions(event.position, selection.fromPosition) < 0) continue;
      if (selection.afterPosition && comparePositions(event.position, selection.afterPosition) <= 0) continue;
      if (!matchesStream(selection, event.streamId) || !matchesTime(selection, event.createdAt)) continue;
      events.push(event);
    }
    if (last) yield { events, scanned, lastPosition: last };
    if (reachedEnd || batch.length < options.batchSize) return;
    after = batch[batch.length - 1].position;
  }
}
