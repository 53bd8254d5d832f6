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
 * For the owner only: recent rejected attempts per webhook (and replay counts), in memory, bounded. Unknown webhook
 * ids are not recorded (nobody owns them), so a flood of random ids cannot grow it; a flood on
 * one webhook only rotates that webhook's ring.
 */
export class WebhookActivityLog {
  private readonly rings = new Map<string, RejectedAttempt[]>();
  /** Replays answered per delivery id, newest kept (Map keeps insertion order). */
  private readonly replays = new Map<string, number>();

  constructor(
    private readonly perWebhook = 100,
    private readonly replayEntries = 10_000,
  ) {}

  recordReplay(deliveryId: string): void {
    const count = (this.replays.get(deliveryId) ?? 0) + 1;
    this.replays.delete(deliveryId);
    this.replays.set(deliveryId, count);
    if (this.replays.size > this.replayEntries) {
      const oldest = this.replays.keys().next().value;
      if (oldest !== undefined) this.replays.delete(oldest);
    }
  }

  /** How many times this process answered a repeat of the delivery with its original 202. */
  replaysOf(deliveryId: string): number {
    return this.replays.get(deliveryId) ?? 0;
  }

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
