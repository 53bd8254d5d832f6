import { describeError } from '@wts/runtime';
import type { MessagingLogger } from './kafka-client.factory';

/** Commits the group's offsets resolved so far (the consumer's `commitOffsetsIfNecessary(uncommittedOffsets())`). */
export type OffsetCommit = () => Promise<void>;

/**
 * Writes the consumer group's resolved offsets to Kafka off the batches' path. A finished slice
 * asks for a commit and its batch ends at once, so the next fetch goes out without waiting for the
 * broker's answer; the commit follows within `delayMs`, one for every slice finished meanwhile, one
 * commit in flight at a time. `flush()` commits what is pending now and waits for the answer: a
 * stop calls it before the member leaves the group, so what was done is committed on the way out,
 * and a slice waiting on a retried message calls it every `commitEveryMs`: every commit goes through here.
 *
 * Offsets are still committed only after their messages are done with (their runs exist): the
 * consumer resolves an offset only then, and a commit carries resolved offsets alone. What a
 * crash leaves uncommitted (at most `delayMs` of finished slices) comes again, harmlessly: the
 * handler is idempotent.
 */
export class ConsumerOffsetWriter {
  private timer: NodeJS.Timeout | undefined;
  private pending: OffsetCommit | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly delayMs: number,
    private readonly logger: MessagingLogger,
  ) {}

  /** A commit within `delayMs` (through `commit`, the newest asked for: the offsets it reads are the group's). */
  later(commit: OffsetCommit): void {
    this.pending = commit;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.delayMs);
  }

  /**
   * Commits what is pending (through `commit` when given: a commit asked for now) after any commit
   * in flight; resolves once the broker answered (or the commit failed).
   */
  flush(now?: OffsetCommit): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const commit = now ?? this.pending;
    this.pending = undefined;
    // A failed commit (a rebalance under way, the broker gone) leaves its offsets uncommitted: they come again.
    if (commit)
      this.writing = this.writing.then(() =>
        commit().catch((error: unknown) => {
          this.logger.warn({ err: describeError(error) }, 'offset commit failed; its messages come again');
        }),
      );
    return this.writing;
  }

  /** Drops what is pending: the member it belonged to crashed, and its offsets cannot be committed any more. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }
}
