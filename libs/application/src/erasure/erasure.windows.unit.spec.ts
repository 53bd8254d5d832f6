import type { EventStore } from '@wts/event-store';
import type { PayloadLookup } from '../payload/payload.reader';
import type { RemovalRequest } from '../payload/payload.remover';
import { MATCHED_AT_ONCE, SCANNED_PER_WINDOW, eraseWindow, type ErasureWindowDependencies, type WindowRequest } from './erasure.windows';

/** A read model's window of kept rows, a payload reader and a remover that record what they were asked. */
function given(window: { deliveryIds: string[]; scanned: number; next: string | null }, payloads: ReadonlyMap<string, PayloadLookup>) {
  const asked = { limits: [] as number[], lookups: [] as number[], removals: [] as string[][] };
  const deps: ErasureWindowDependencies = {
    // A read model's window never touches the store itself.
    store: {} as EventStore,
    candidates: {
      erasureCandidates: async (_selection, _after, limit) => {
        asked.limits.push(limit);
        return window;
      },
    },
    reader: {
      lookup: async (deliveryIds) => {
        asked.lookups.push(deliveryIds.length);
        return new Map(deliveryIds.flatMap((id) => (payloads.has(id) ? [[id, payloads.get(id) as PayloadLookup] as const] : [])));
      },
    },
    remover: {
      remove: async (deliveryIds: readonly string[], _request: RemovalRequest) => {
        asked.removals.push([...deliveryIds]);
        return deliveryIds.length;
      },
    },
  };
  return { deps, asked };
}

/** A read-model window of erasure era_1. */
const inReadModel = (selection: WindowRequest['selection'], needle?: string, cursor: string | null = null): WindowRequest => ({
  erasureId: 'era_1',
  selection,
  needle,
  cursor,
  mode: 'read_model',
});
const ids = (count: number): string[] => Array.from({ length: count }, (_, i) => `dlv_${i}`);
const kept = (json: string): PayloadLookup => ({ state: 'kept', payload: { format: 'json', json } });

describe("an erasure's window of the read models' kept payloads", () => {
  it('given a routine selection, when a window runs, then it reads SCANNED_PER_WINDOW kept rows and removes every match, a removal batch at a time', async () => {
    const { deps, asked } = given({ deliveryIds: ids(2500), scanned: SCANNED_PER_WINDOW, next: 'cursor' }, new Map());

    const window = await eraseWindow(deps, inReadModel({ routineId: 'rtn_1' }));

    expect(asked.limits).toEqual([SCANNED_PER_WINDOW]);
    expect(asked.lookups).toEqual([]);
    expect(asked.removals.map((batch) => batch.length)).toEqual([1000, 1000, 500]);
    expect(window).toEqual({ next: 'cursor', scanned: SCANNED_PER_WINDOW, selected: 2500, erased: 2500 });
  });

  it('given `contains` too, when a window runs, then payloads are read MATCHED_AT_ONCE at a time and only kept ones holding it are removed', async () => {
    const candidates = ids(2500);
    const payloads = new Map<string, PayloadLookup>([
      ['dlv_3', kept('{"email":"Jane.Doe@example.com"}')],
      ['dlv_1500', kept('{"email":"jane.doe@example.com"}')],
      ['dlv_2499', kept('{"email":"john@example.com"}')],
      ['dlv_7', { state: 'erased', removedAt: new Date(0), erasureId: 'era_0' }],
    ]);
    const { deps, asked } = given({ deliveryIds: candidates, scanned: 4000, next: null }, payloads);

    const window = await eraseWindow(deps, inReadModel({ routineId: 'rtn_1', containsDigest: 'digest' }, 'jane.doe@example.com', 'cursor'));

    expect(asked.lookups).toEqual([MATCHED_AT_ONCE, MATCHED_AT_ONCE, 500]);
    expect(asked.removals).toEqual([['dlv_3', 'dlv_1500']]);
    expect(window).toEqual({ next: null, scanned: 4000, selected: 2, erased: 2 });
  });

  it('given a window where nothing matches, when it runs, then nothing is removed and the erasure goes on from where it read to', async () => {
    const { deps, asked } = given({ deliveryIds: [], scanned: SCANNED_PER_WINDOW, next: 'further' }, new Map());

    const window = await eraseWindow(deps, inReadModel({ triggerAccount: 'a@example.com' }));

    expect(asked.removals).toEqual([]);
    expect(window).toEqual({ next: 'further', scanned: SCANNED_PER_WINDOW, selected: 0, erased: 0 });
  });
});
