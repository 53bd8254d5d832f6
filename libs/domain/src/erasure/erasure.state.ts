import type { ErasureEvent, ErasureSelection } from '@wts/contracts';

/**
 * An erasure as its stream tells it. The counts are running totals (each ErasureProgressed carries
 * them whole), so the last progress is the state: a job resuming after a crash goes on from it.
 */
export interface ErasureState {
  readonly erasureId: string;
  readonly selection: ErasureSelection;
  readonly requestedAt: string;
  readonly requestedBy: string;
  /** Where the next window starts (null: from the beginning, or — once `exhausted` — nothing is left). */
  readonly cursor: string | null;
  /** True once a window reported the end of the selection: only the finishing steps are left. */
  readonly exhausted: boolean;
  readonly windows: number;
  readonly scanned: number;
  readonly selected: number;
  readonly erased: number;
  readonly finished?: { readonly status: 'done' | 'failed'; readonly at: string; readonly error?: string };
}

/** Folds an erasure's events (in stream order); undefined when the stream holds no request. */
export function foldErasure(events: readonly ErasureEvent[]): ErasureState | undefined {
  let state: ErasureState | undefined;
  for (const event of events) {
    switch (event.type) {
      case 'ErasureRequested': {
        const { erasureId, selection, requestedAt, requestedBy } = event.data;
        state = {
          erasureId,
          selection,
          requestedAt,
          requestedBy,
          cursor: null,
          exhausted: false,
          windows: 0,
          scanned: 0,
          selected: 0,
          erased: 0,
        };
        break;
      }
      case 'ErasureProgressed':
        if (!state) break;
        state = {
          ...state,
          cursor: event.data.cursor,
          exhausted: event.data.cursor === null,
          windows: state.windows + 1,
          scanned: event.data.scanned,
          selected: event.data.selected,
          erased: event.data.erased,
        };
        break;
      case 'ErasureFinished': {
        if (!state) break;
        const { status, selected, erased, finishedAt, error } = event.data;
        state = {
          ...state,
          selected,
          erased,
          finished: error === undefined ? { status, at: finishedAt } : { status, at: finishedAt, error },
        };
        break;
      }
    }
  }
  return state;
}
