import type { ErasureEvent } from '@wts/contracts';
import { foldErasure } from './erasure.state';

const ERA = 'era_AAAAAAAAAAAAAAAAAAAAAA';
const requested: ErasureEvent = {
  type: 'ErasureRequested',
  data: { erasureId: ERA, selection: { containsDigest: 'ab' }, requestedAt: '2026-01-01T00:00:00.000Z', requestedBy: 'ana' },
};
const progressed = (cursor: string | null, scanned: number, selected: number, erased: number): ErasureEvent => ({
  type: 'ErasureProgressed',
  data: { erasureId: ERA, cursor, scanned, selected, erased },
});

describe('foldErasure', () => {
  it('given no events, then there is no erasure', () => {
    expect(foldErasure([])).toBeUndefined();
  });

  it('given a request, then it runs from the beginning with nothing counted', () => {
    expect(foldErasure([requested])).toMatchObject({ erasureId: ERA, cursor: null, exhausted: false, windows: 0, erased: 0 });
  });

  it('given windows, then the last one is where the job goes on (counts are running totals)', () => {
    const state = foldErasure([requested, progressed('c1', 10, 3, 3), progressed('c2', 20, 5, 4)]);
    expect(state).toMatchObject({ cursor: 'c2', exhausted: false, windows: 2, scanned: 20, selected: 5, erased: 4 });
    expect(state?.finished).toBeUndefined();
  });

  it('given a window with no cursor after the first, then the selection is exhausted: only finishing is left', () => {
    expect(foldErasure([requested, progressed('c1', 10, 3, 3), progressed(null, 12, 4, 4)])).toMatchObject({
      exhausted: true,
      cursor: null,
    });
  });

  it('given a finish, then its status, time, counts and error are the answer', () => {
    const state = foldErasure([
      requested,
      progressed(null, 12, 4, 4),
      {
        type: 'ErasureFinished',
        data: { erasureId: ERA, status: 'failed', selected: 4, erased: 4, finishedAt: '2026-01-01T00:01:00.000Z', error: 'reclaim' },
      },
    ]);
    expect(state).toMatchObject({
      selected: 4,
      erased: 4,
      finished: { status: 'failed', at: '2026-01-01T00:01:00.000Z', error: 'reclaim' },
    });
  });
});
