import { Signal, retryWithBackoff, type RetryOptions } from '@wts/runtime';
import type { RelayTuning } from './event-relay.tuning';
import { batchBytes, type RelayEntry } from './relay.entry';

/**
 * The relay's buffer between the store subscription and the pump, bounded by count (two batches)
 * and by bytes (`maxBufferBytes`; an empty buffer takes any one event, however large). The pump
 * takes batches off its head; closing it wakes whoever waits on it.
 */
export class RelayBuffer {
  private readonly entries: RelayEntry[] = [];
  private bytes = 0;
  private closed = false;
  private readonly entriesAdded = new Signal();
  private readonly spaceFreed = new Signal();

  constructor(private readonly limits: Pick<RelayTuning, 'maxBatchSize' | 'maxBatchBytes' | 'maxBufferBytes'>) {}

  get length(): number {
    return this.entries.length;
  }

  /** When the oldest entry was recorded (epoch ms); undefined when empty. */
  oldestAt(): number | undefined {
    return this.entries[0]?.at;
  }

  /** Adds `entry` once there is room for it; false (not added) when the buffer closed first. */
  async add(entry: RelayEntry): Promise<boolean> {
    const { maxBatchSize, maxBufferBytes } = this.limits;
    while (
      !this.closed &&
      this.entries.length > 0 &&
      (this.entries.length >= maxBatchSize * 2 || this.bytes + entry.bytes > maxBufferBytes)
    ) {
      await this.spaceFreed.wait();
    }
    if (this.closed) return false;
    this.entries.push(entry);
    this.bytes += entry.bytes;
    this.entriesAdded.notify();
    return true;
  }

  /** Resolves once an entry is added, or the buffer closes. */
  whenAdded(): Promise<void> {
    return this.entriesAdded.wait();
  }

  /** A full batch is waiting: no need to linger. */
  fullBatchBuffered(): boolean {
    return this.entries.length >= this.limits.maxBatchSize || this.bytes >= this.limits.maxBatchBytes;
  }

  /** The head of the buffer: at most `maxBatchSize` events and `maxBatchBytes`, at least one event. */
  nextBatch(): RelayEntry[] {
    const { maxBatchSize, maxBatchBytes } = this.limits;
    let bytes = 0;
    let count = 0;
    for (const entry of this.entries) {
      if (count > 0 && (count >= maxBatchSize || bytes + entry.bytes > maxBatchBytes)) break;
      bytes += entry.bytes;
      count++;
    }
    return this.entries.slice(0, count);
  }

  /** Records an entry's new size (a run's message completed with its framed payload); idempotent. */
  resize(entry: RelayEntry, bytes: number): void {
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  /** Drops `batch`, the head of the buffer, once it is done with. */
  remove(batch: readonly RelayEntry[]): void {
    this.entries.splice(0, batch.length);
    this.bytes -= batchBytes(batch);
    this.spaceFreed.notify();
  }

  close(): void {
    this.closed = true;
    this.entriesAdded.notify();
    this.spaceFreed.notify();
  }
}

/**
 * Completes the run messages of `batch` (the buffer's head) from the payload store: their reads
 * were started, batched, as the events came in; a failed read is tried again with `retry`'s
 * backoff. The buffer grows by what they add. False when `retry` stopped first.
 */
export async function completeRunMessages(buffer: RelayBuffer, batch: readonly RelayEntry[], retry: RetryOptions): Promise<boolean> {
  for (const entry of batch) {
    const complete = entry.complete;
    if (!complete) continue;
    const completed = await retryWithBackoff(() => complete(), retry);
    if (completed.kind !== 'done') return false;
    buffer.resize(entry, completed.value);
  }
  return true;
}
