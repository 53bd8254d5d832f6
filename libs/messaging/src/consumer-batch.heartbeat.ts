import type { EachBatchPayload } from 'kafkajs';
import { describeError, sleep, type Signal } from '@wts/runtime';
import type { MessagingLogger } from './kafka-client.factory';

export interface BatchHeartbeatOptions {
  readonly heartbeatIntervalMs: number;
  /** The consumer is stopping. */
  readonly stopped: () => boolean;
  /** Wakes a wait (a stop request). */
  readonly interrupt: Signal;
  readonly logger: MessagingLogger;
}

/**
 * Heartbeats for a batch while its messages are handled or retried (kafkajs does not while
 * eachBatch runs), so slow work does not get the member evicted — and the message handled again by
 * the next owner, forever. kafkajs sends at most one heartbeat per interval, shared with its own.
 */
export class BatchHeartbeat {
  constructor(
    private readonly payload: EachBatchPayload,
    private readonly options: BatchHeartbeatOptions,
  ) {}

  /** The batch is still this member's to handle: not stale, and the consumer is running. */
  current(): boolean {
    return !this.options.stopped() && this.payload.isRunning() && !this.payload.isStale();
  }

  /**
   * Awaits `work` (a handler) while heartbeating on a timer. The timer stops when the work
   * settles, the batch goes stale or the consumer stops.
   */
  async during<T>(work: Promise<T>): Promise<T> {
    let beating = false;
    const timer = setInterval(
      () => {
        if (!this.current()) {
          clearInterval(timer);
          return;
        }
        if (beating) return;
        beating = true;
        this.payload
          .heartbeat()
          .catch((error: unknown) => {
            // A rebalance under way: the commit after the work tells; kafkajs rejoins.
            this.options.logger.warn({ err: describeError(error) }, 'heartbeat during a handler failed');
          })
          .finally(() => {
            beating = false;
          });
      },
      Math.max(50, Math.floor(this.options.heartbeatIntervalMs / 2)),
    );
    try {
      return await work;
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * Waits `ms` while heartbeating, so a long retry does not get the member kicked out; ends early
   * once the batch is no longer current (the offset then stays uncommitted). A heartbeat that
   * reports a rebalance throws, and kafkajs rejoins the group.
   */
  async wait(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (!this.current()) return;
      const left = deadline - Date.now();
      if (left <= 0) return;
      await sleep(Math.min(left, this.options.heartbeatIntervalMs), this.options.interrupt);
      await this.payload.heartbeat();
    }
  }
}
