import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';

/**
 * The appends made through one SQLite file's store on this thread, told to the stores of the same
 * file on this process's other threads (a service thread's subscriptions: the read-model projector,
 * the run relay): they wake at once instead of at their next poll. Other processes' appends are
 * still found by polling. The stream ids of one turn of the event loop go as one message. Holds
 * the process open for nothing: the channel is unref'd.
 */
export class SqliteAppendChannel {
  private readonly channel: BroadcastChannel;
  private pending: string[] | undefined;
  private closed = false;

  constructor(filePath: string, onAppendedElsewhere: (streamIds: readonly string[]) => void) {
    this.channel = new BroadcastChannel(`wts-sqlite-appends:${resolve(filePath)}`);
    this.channel.unref();
    this.channel.onmessage = (message) => {
      if (Array.isArray(message.data)) onAppendedElsewhere(message.data.filter((id): id is string => typeof id === 'string'));
    };
  }

  /** Said to the other threads at the end of this turn, with the turn's other appends. */
  announce(streamId: string): void {
    if (this.pending) {
      this.pending.push(streamId);
      return;
    }
    const pending = [streamId];
    this.pending = pending;
    setImmediate(() => {
      this.pending = undefined;
      if (!this.closed) this.channel.postMessage(pending);
    });
  }

  close(): void {
    this.closed = true;
    this.channel.close();
  }
}
