import type { EventStore, ReclaimReport } from '@wts/event-store';
import type { Clock } from '../shared/runtime.port';
import { MAX_REMOVAL_BATCH, type PayloadRemover } from './payload.remover';

/** Where the sweep finds payloads past their expiry: the store's own index, or the read model where the store has none (EventStoreDB). */
export type DuePayloads = (now: Date, limit: number) => Promise<readonly string[]>;

export interface PayloadSweepReport {
  readonly removed: number;
  /** Absent when nothing needed giving back. */
  readonly reclaimed?: ReclaimReport;
}

const HOUR_MS = 3_600_000;

/**
 * Removes payloads past their expiry, a batch at a time (at most `maxBatches` a sweep, so one sweep
 * never runs for long), through the remover (no run is ever made from a removed payload), then has
 * the store give their space back and leave no removed byte in its files. The store is asked to
 * reclaim only when something was removed since it last completed, or an hour went by (an expired
 * hour's table can go only once that hour is past): a reclaim checkpoints the store's log, which
 * costs the writer, so it is never done for nothing.
 */
export class PayloadRetentionSweeper {
  private reclaimPending = true;
  private lastReclaimHour = -1;

  constructor(
    private readonly store: EventStore,
    private readonly remover: Pick<PayloadRemover, 'remove'>,
    private readonly due: DuePayloads,
    private readonly clock: Clock,
    private readonly maxBatches = 20,
  ) {}

  async sweep(): Promise<PayloadSweepReport> {
    let removed = 0;
    for (let batch = 0; batch < this.maxBatches; batch += 1) {
      const deliveryIds = await this.due(this.clock.now(), MAX_REMOVAL_BATCH);
      if (deliveryIds.length === 0) break;
      const now = await this.remover.remove(deliveryIds, { reason: 'expired', erasureId: null });
      removed += now;
      // A short batch is the last; one that removed nothing is a lagging source (the read model): next sweep.
      if (deliveryIds.length < MAX_REMOVAL_BATCH || now === 0) break;
    }
    if (removed > 0) this.reclaimPending = true;
    const now = this.clock.now().getTime();
    const hour = Math.floor(now / HOUR_MS);
    if (!this.reclaimPending && hour === this.lastReclaimHour) return { removed };
    const reclaimed = await this.store.payloads().reclaim(now);
    this.reclaimPending = !reclaimed.complete;
    this.lastReclaimHour = hour;
    return { removed, reclaimed };
  }
}
