import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { WebhookHoldService } from '@wts/application';

/** How often each ingress replica looks for holds whose release_at has passed. */
export const HOLD_EXPIRY_CHECK_MS = 1_000;

/**
 * Releases expired holds: every HOLD_EXPIRY_CHECK_MS, the holds folded here whose release_at has
 * passed are released (one WebhookReleased per hold, whichever replica gets there first). One look
 * at a time; a failure (the store down) is logged and the next look tries again.
 */
export class HoldExpiryLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly holds: WebhookHoldService,
    private readonly everyMs = HOLD_EXPIRY_CHECK_MS,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.look(), this.everyMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.looking;
  }

  private look(): void {
    if (this.looking) return;
    this.looking = this.holds
      .releaseExpired()
      .then(
        (released) => {
          if (released > 0) new Logger('HoldExpiry').log({ released }, 'expired holds released');
        },
        (error: unknown) => new Logger('HoldExpiry').error({ err: error }, 'expired holds could not be released; trying again'),
      )
      .finally(() => {
        this.looking = undefined;
      });
  }
}
