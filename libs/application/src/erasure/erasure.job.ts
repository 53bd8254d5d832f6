import { Streams, type ErasureFinished, type ErasureProgressed } from '@wts/contracts';
import { derivedEventId, selectsFromReadModel, type ErasureState } from '@wts/domain';
import type { GlobalPosition } from '@wts/event-store';
import { describeError, retryWithBackoff, sleep, type BackoffPolicy } from '@wts/runtime';
import { causedBy, toAppend } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.port';
import { readErasure, type StoredErasure } from './erasure.view';
import { eraseWindow, type ErasureWindowDependencies } from './erasure.windows';

/** Waits until the read models include everything up to `position` (the projector's checkpoint at or past it); throws when they do not in time. */
export type ReadModelsAt = (position: GlobalPosition) => Promise<void>;

/** Reclaims tried, with backoff between them, before the erasure is finished `failed`. */
export interface ReclaimPolicy extends BackoffPolicy {
  readonly attempts: number;
}

export const DEFAULT_RECLAIM_POLICY: ReclaimPolicy = { attempts: 8, initialDelayMs: 100, maxDelayMs: 5_000 };

export interface ErasureJobDependencies extends ErasureWindowDependencies {
  readonly readModelsAt: ReadModelsAt;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly reclaim?: ReclaimPolicy;
  /**
   * How long to rest after a window, as a share of the time it took (0: none, 1: as long again).
   * A service's runner rests so that a scan over millions of payloads leaves the machine's CPU to
   * the requests being answered meanwhile; an operator's CLI run goes flat out.
   */
  readonly restShare?: number;
}

export interface ErasureRunOptions {
  /** Aborted: the window in flight ends, is recorded, and the run stops (`stopped`); a later run goes on. */
  readonly signal?: AbortSignal;
  /** Told after each recorded window and at the end. */
  readonly onProgress?: (state: ErasureState) => void;
}

export type ErasureRunOutcome =
  | { readonly kind: 'finished'; readonly state: ErasureState }
  | { readonly kind: 'stopped'; readonly state: ErasureState }
  | { readonly kind: 'not_found' };

/**
 * Runs an erasure to its end, a window at a time, resumable at every step: each window is
 * recorded (ErasureProgressed, with the cursor to go on from) at the stream's revision as read, so
 * two runners never both advance it — the one that loses re-reads and goes on from the winner's
 * cursor. At the end: the erasure's own search string is removed, the store reclaims until no
 * removed byte is in its files (a few tries with backoff, then `failed` with the reason), and
 * ErasureFinished is recorded. Structured selectors are read from the read model only once it has
 * projected everything up to the request (so nothing accepted before it is missed).
 */
export class ErasureJob {
  private readonly reclaimPolicy: ReclaimPolicy;

  constructor(private readonly deps: ErasureJobDependencies) {
    this.reclaimPolicy = deps.reclaim ?? DEFAULT_RECLAIM_POLICY;
  }

  async run(erasureId: string, options: ErasureRunOptions = {}): Promise<ErasureRunOutcome> {
    let stored = await readErasure(this.deps.store, erasureId);
    if (!stored) return { kind: 'not_found' };
    if (stored.state.finished) return { kind: 'finished', state: stored.state };
    const { selection } = stored.state;
    const mode = selectsFromReadModel(selection) ? 'read_model' : 'scan';
    let needle: string | undefined;
    if (selection.containsDigest !== undefined && !stored.state.exhausted) {
      needle = await this.searchString(erasureId);
      if (needle === undefined)
        return this.finish(stored, 'failed', 'the search string is no longer kept (the erasure was abandoned for over 7 days)');
    }
    if (mode === 'read_model' && !stored.state.exhausted) await this.deps.readModelsAt(stored.requested.position);

    while (!stored.state.exhausted) {
      if (options.signal?.aborted) return { kind: 'stopped', state: stored.state };
      const state: ErasureState = stored.state;
      const started = performance.now();
      const window = await eraseWindow(this.deps, { erasureId, selection, needle, cursor: state.cursor, mode });
      if (this.deps.restShare) await sleep((performance.now() - started) * this.deps.restShare);
      const progressed: ErasureProgressed = {
        type: 'ErasureProgressed',
        data: {
          erasureId,
          cursor: window.next,
          scanned: state.scanned + window.scanned,
          selected: state.selected + window.selected,
          erased: state.erased + window.erased,
        },
      };
      const revision: bigint = stored.revision + 1n;
      const result = await this.append(erasureId, progressed, stored.revision, revision);
      if (result === 'conflict') {
        // Another runner recorded this window first: go on from where it got to.
        stored = await this.reread(erasureId);
        if (stored.state.finished) return { kind: 'finished', state: stored.state };
        continue;
      }
      stored = {
        ...stored,
        revision,
        state: {
          ...state,
          ...progressed.data,
          exhausted: window.next === null,
          windows: state.windows + 1,
        },
      };
      options.onProgress?.(stored.state);
    }
    if (options.signal?.aborted) return { kind: 'stopped', state: stored.state };
    const outcome = await this.finishing(stored);
    options.onProgress?.(outcome.state);
    return outcome;
  }

  /** The plaintext search string, kept as a payload under the erasure's id; undefined once gone. */
  private async searchString(erasureId: string): Promise<string | undefined> {
    const stored = (await this.deps.store.payloads().get([erasureId])).get(erasureId);
    return stored?.state === 'kept' ? stored.text.toLowerCase() : undefined;
  }

  private async finishing(stored: StoredErasure): Promise<{ kind: 'finished'; state: ErasureState }> {
    const { erasureId } = stored.state;
    if (stored.state.selection.containsDigest !== undefined) {
      await this.deps.store.payloads().remove([erasureId], { reason: 'erased', erasureId, at: this.deps.clock.now().getTime() });
    }
    const failure = await this.reclaim();
    return this.finish(stored, failure === undefined ? 'done' : 'failed', failure);
  }

  /** Undefined once the store reports every removed byte out of its files; else why not, after the policy's tries. */
  private async reclaim(): Promise<string | undefined> {
    const { attempts } = this.reclaimPolicy;
    let reason = 'the store did not report the reclaim complete';
    // No wait after the last try: `proceed` stops the loop before it.
    const outcome = await retryWithBackoff(
      async () => {
        let complete: boolean;
        try {
          complete = (await this.deps.store.payloads().reclaim(this.deps.clock.now().getTime())).complete;
        } catch (error) {
          reason = `reclaim failed after ${attempts} tries: ${describeError(error)}`;
          throw error;
        }
        if (complete) return;
        reason = `the store did not report the reclaim complete after ${attempts} tries (a reader may hold the log open)`;
        throw new Error(reason);
      },
      { ...this.reclaimPolicy, proceed: (attempt) => attempt <= attempts },
    );
    return outcome.kind === 'done' ? undefined : reason;
  }

  private async finish(
    stored: StoredErasure,
    status: 'done' | 'failed',
    error: string | undefined,
  ): Promise<{ kind: 'finished'; state: ErasureState }> {
    const { erasureId, selected, erased } = stored.state;
    const finishedAt = this.deps.clock.now().toISOString();
    const finished: ErasureFinished = {
      type: 'ErasureFinished',
      data: { erasureId, status, selected, erased, finishedAt, ...(error === undefined ? {} : { error }) },
    };
    const result = await this.append(erasureId, finished, stored.revision, stored.revision + 1n);
    if (result === 'conflict') {
      const now = await this.reread(erasureId);
      // Another runner finished it, or recorded a window: finishing again from its state is idempotent.
      if (now.state.finished) return { kind: 'finished', state: now.state };
      return this.finish(now, status, error);
    }
    return {
      kind: 'finished',
      state: { ...stored.state, finished: error === undefined ? { status, at: finishedAt } : { status, at: finishedAt, error } },
    };
  }

  /**
   * Appends at `expected`, with an id derived from the erasure, the revision it takes and what it
   * says: the same append retried is the same event, while another runner's different window at that
   * revision is a conflict, not mistaken for a retry.
   */
  private async append(
    erasureId: string,
    event: ErasureProgressed | ErasureFinished,
    expected: bigint,
    revision: bigint,
  ): Promise<'appended' | 'conflict'> {
    const context = causedBy(erasureId, erasureId);
    const events = toAppend([event], context, () => derivedEventId(event.type, erasureId, String(revision), JSON.stringify(event.data)));
    const result = await this.deps.store.append(Streams.erasure(erasureId), events, expected);
    return result.kind;
  }

  private async reread(erasureId: string): Promise<StoredErasure> {
    const stored = await readErasure(this.deps.store, erasureId);
    if (!stored) throw new Error(`erasure ${erasureId} disappeared from the store`);
    return stored;
  }
}
