import type { WebhookHoldService } from '@wts/application';
import { PeriodicTaskLifecycle } from '@wts/platform';

/** How often each ingress replica looks for holds whose release_at has passed. */
export const HOLD_EXPIRY_CHECK_MS = 1_000;

/**
 * Releases expired holds: every HOLD_EXPIRY_CHECK_MS, the holds folded here whose release_at has
 * passed are released (one WebhookReleased per hold, whichever replica gets there first). One look
 * at a time; a failure (the store down) is logged and the next look tries again.
 */
export class HoldExpiryLifecycle extends PeriodicTaskLifecycle<number> {
  constructor(holds: WebhookHoldService, everyMs = HOLD_EXPIRY_CHECK_MS) {
    super({
      name: 'HoldExpiry',
      everyMs,
      run: () => holds.releaseExpired(),
      describe: (released) => (released > 0 ? { fields: { released }, message: 'expired holds released' } : undefined),
      failure: 'expired holds could not be released; trying again',
    });
  }
}
