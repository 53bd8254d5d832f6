import type { PayloadRetentionSweeper, PayloadSweepReport } from '@wts/application';
import { PeriodicTaskLifecycle } from '@wts/platform';

/** How often a dispatcher removes expired payloads: well inside the minute a payload may outlive its expiry. */
export const PAYLOAD_SWEEP_MS = 10_000;

/**
 * Removes payloads past their retention, then has the store give their space back: every
 * PAYLOAD_SWEEP_MS, on every dispatcher (a removal is idempotent: replicas sweeping the same
 * payload remove it once). One sweep at a time; a failure is logged and the next sweep tries again.
 */
export class PayloadSweepLifecycle extends PeriodicTaskLifecycle<PayloadSweepReport> {
  constructor(sweeper: Pick<PayloadRetentionSweeper, 'sweep'>, everyMs = PAYLOAD_SWEEP_MS) {
    super({
      name: 'PayloadSweep',
      everyMs,
      run: () => sweeper.sweep(),
      describe: ({ removed, reclaimed }) =>
        removed > 0 || (reclaimed !== undefined && reclaimed.released > 0)
          ? {
              fields: { removed, released: reclaimed?.released ?? 0, complete: reclaimed?.complete ?? null },
              message: 'expired payloads removed',
            }
          : undefined,
      failure: 'expired payloads could not be removed; trying again',
    });
  }
}
