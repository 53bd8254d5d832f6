import type { ErasureSelection } from '@wts/contracts';
import { ID_PREFIX, payloadMatches } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import type { PayloadReader } from '../payload/payload.reader';
import { MAX_REMOVAL_BATCH, type PayloadRemover } from '../payload/payload.remover';
import type { ErasureCandidateSource } from './erasure.view';

/**
 * Payloads a window looks at, kept rows of the read model or payloads of the store's scan: short
 * enough not to hold a thread up for long, long enough that an erasure of a routine or an account
 * among millions of kept payloads records a window (ErasureProgressed) per 10,000 of them.
 */
export const SCANNED_PER_WINDOW = 10_000;
/** Payloads read at once to match `contains` in a read model's window: one removal's worth, not the window's bodies at once. */
export const MATCHED_AT_ONCE = MAX_REMOVAL_BATCH;

/** What one window did; `next` null when the selection is exhausted. */
export interface ErasureWindow {
  readonly next: string | null;
  readonly scanned: number;
  readonly selected: number;
  readonly erased: number;
}

export interface ErasureWindowDependencies {
  readonly store: EventStore;
  readonly remover: Pick<PayloadRemover, 'remove'>;
  readonly reader: Pick<PayloadReader, 'lookup'>;
  readonly candidates: ErasureCandidateSource;
}

export interface WindowRequest {
  readonly erasureId: string;
  readonly selection: ErasureSelection;
  /** The lower-cased search string, when the erasure has one. */
  readonly needle: string | undefined;
  readonly cursor: string | null;
  /** Structured selectors (read model), or `contains` alone (the store's scan). */
  readonly mode: 'read_model' | 'scan';
}

/**
 * One window of an erasure: a page of what the selection names, narrowed by `contains`, removed
 * through the remover (no run is ever made from a removed payload). Re-running a window after a
 * crash removes nothing twice: a removed payload is no longer a candidate, nor found by a scan.
 */
export async function eraseWindow(deps: ErasureWindowDependencies, request: WindowRequest): Promise<ErasureWindow> {
  return request.mode === 'read_model' ? readModelWindow(deps, request) : scanWindow(deps, request);
}

async function readModelWindow(deps: ErasureWindowDependencies, request: WindowRequest): Promise<ErasureWindow> {
  const page = await deps.candidates.erasureCandidates(request.selection, request.cursor, SCANNED_PER_WINDOW);
  const needle = request.needle;
  const selected = needle === undefined ? page.deliveryIds : await containing(deps, page.deliveryIds, needle);
  const erased = await remove(deps, selected, request.erasureId);
  return { next: page.next, scanned: page.scanned, selected: selected.length, erased };
}

/** Those of `deliveryIds` whose payload is kept and holds `needle`, read MATCHED_AT_ONCE at a time. */
async function containing(deps: ErasureWindowDependencies, deliveryIds: readonly string[], needle: string): Promise<string[]> {
  const matching: string[] = [];
  for (let start = 0; start < deliveryIds.length; start += MATCHED_AT_ONCE) {
    const chunk = deliveryIds.slice(start, start + MATCHED_AT_ONCE);
    const payloads = await deps.reader.lookup(chunk);
    for (const deliveryId of chunk) {
      const found = payloads.get(deliveryId);
      if (found?.state !== 'kept') continue;
      const record = found.payload;
      if (payloadMatches(record.format === 'json' ? record.json : record.text, needle)) matching.push(deliveryId);
    }
  }
  return matching;
}

async function scanWindow(deps: ErasureWindowDependencies, request: WindowRequest): Promise<ErasureWindow> {
  if (request.needle === undefined) throw new Error(`erasure ${request.erasureId} selects on nothing the store can scan`);
  const page = await deps.store.payloads().scan(request.needle, {
    ...(request.cursor === null ? {} : { cursor: request.cursor }),
    limit: SCANNED_PER_WINDOW,
  });
  // Deliveries only: this erasure's own search string (and any other erasure's) is a payload too.
  const selected = page.matches.filter((key) => key.startsWith(ID_PREFIX.delivery));
  const erased = await remove(deps, selected, request.erasureId);
  return { next: page.cursor ?? null, scanned: page.scanned, selected: selected.length, erased };
}

async function remove(deps: ErasureWindowDependencies, deliveryIds: readonly string[], erasureId: string): Promise<number> {
  let erased = 0;
  for (let start = 0; start < deliveryIds.length; start += MAX_REMOVAL_BATCH) {
    erased += await deps.remover.remove(deliveryIds.slice(start, start + MAX_REMOVAL_BATCH), { reason: 'erased', erasureId });
  }
  return erased;
}
