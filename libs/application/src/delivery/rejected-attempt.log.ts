import type { RejectionCode } from '@wts/domain';

/** Why an attempt was refused. Callers saw one 404 for the first two; the owner sees which. */
export type AttemptReason = RejectionCode | 'wrong_secret' | 'webhook_disabled';

export interface RejectedAttempt {
  readonly webhookId: string;
  readonly reason: AttemptReason;
  readonly at: string;
  readonly sourceAddress: string;
}

/**
 * For the owner only: recent rejected attempts per webhook, in memory, bounded. Unknown webhook
 * ids are not recorded (nobody owns them), so a flood of random ids cannot grow it; a flood on
 * one webhook only rotates that webhook's ring.
 */
export class RejectedAttemptLog {
  private readonly rings = new Map<string, RejectedAttempt[]>();

  constructor(private readonly perWebhook = 100) {}

  record(attempt: RejectedAttempt): void {
    const ring = this.rings.get(attempt.webhookId) ?? [];
    ring.push(attempt);
    if (ring.length > this.perWebhook) ring.shift();
    this.rings.set(attempt.webhookId, ring);
  }

  /** Newest first. */
  recent(webhookId: string): RejectedAttempt[] {
    return [...(this.rings.get(webhookId) ?? [])].reverse();
  }
}
