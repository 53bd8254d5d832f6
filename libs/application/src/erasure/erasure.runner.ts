import { StreamCategories, type ErasureEvent } from '@wts/contracts';
import type { ErasureState } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { describeError } from '@wts/runtime';
import { asEvent } from '../shared/event-envelope';
import type { ErasureJob } from './erasure.job';

/** One pass of the runner: erasures that ended in it, those still running, and those that could not go on (tried again next pass). */
export interface ErasureRunnerReport {
  readonly finished: readonly ErasureState[];
  readonly unfinished: number;
  readonly errors: readonly { readonly erasureId: string; readonly error: string }[];
}

const FOLLOW_BATCH = 500;

/**
 * Finds erasures not yet finished and runs each to its end, from its last recorded window — which
 * is how an erasure survives a crash of whoever ran it (the API's request, the command line killed
 * mid-way, a dispatcher restarted). It follows the `erasure-` category from a position held in
 * memory, from the start on every process start: erasures are operators' requests, few, and a
 * filtered read of one category is cheap. Several runners (replicas, the command line) may run the
 * same erasure: each window is recorded at the stream's revision, so only one advances it.
 */
export class ErasureRunner {
  private after: GlobalPosition | undefined;
  private readonly unfinished = new Set<string>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: EventStore,
    private readonly job: Pick<ErasureJob, 'run'>,
  ) {}

  async runPending(): Promise<ErasureRunnerReport> {
    await this.follow();
    const finished: ErasureState[] = [];
    const errors: { erasureId: string; error: string }[] = [];
    for (const erasureId of [...this.unfinished]) {
      if (this.stopping.signal.aborted) break;
      try {
        const outcome = await this.job.run(erasureId, { signal: this.stopping.signal });
        if (outcome.kind === 'stopped') continue;
        this.unfinished.delete(erasureId);
        if (outcome.kind === 'finished') finished.push(outcome.state);
      } catch (error) {
        errors.push({ erasureId, error: describeError(error) });
      }
    }
    return { finished, unfinished: this.unfinished.size, errors };
  }

  /** Ends the erasure in flight after its current window (recorded: the next start goes on from it). */
  stop(): void {
    this.stopping.abort();
  }

  private async follow(): Promise<void> {
    for (;;) {
      const batch = await this.store.readAll({
        after: this.after,
        limit: FOLLOW_BATCH,
        filter: { streamPrefixes: [StreamCategories.erasure] },
      });
      for (const recorded of batch) {
        const event = asEvent<ErasureEvent>(recorded);
        if (event.type === 'ErasureRequested') this.unfinished.add(event.data.erasureId);
        if (event.type === 'ErasureFinished') this.unfinished.delete(event.data.erasureId);
      }
      const last = batch.at(-1);
      if (last) this.after = last.position;
      if (batch.length < FOLLOW_BATCH) return;
    }
  }
}
