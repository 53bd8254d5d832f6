import type { AllStreamResolvedEvent, AllStreamSubscription } from '@eventstore/db-client';
import {
  comparePositions,
  EventStoreUnavailableError,
  type EventHandler,
  type GlobalPosition,
  type RecordedEvent,
  type Subscription,
} from '../event-store.port';
import { toStoreError } from './eventstoredb-error.mapping';
import { positionOf } from './eventstoredb-event.mapping';

export interface CatchUpSource {
  /**
   * Opens the client subscription; undefined when nothing can ever match (an empty prefix list),
   * in which case the subscription idles until stopped.
   */
  open(): AllStreamSubscription | undefined;
  /** The event to hand to the handler, or undefined to skip it (system, checkpoint, filtered out). */
  accept(resolved: AllStreamResolvedEvent): RecordedEvent | undefined;
}

/**
 * A catch-up subscription over the client's subscribeToAll, consumed as an async iterable so the
 * handler is awaited one event at a time (the client's Readable applies backpressure to gRPC).
 */
export class EventStoreDbCatchUpSubscription implements Subscription {
  readonly done: Promise<void>;
  private stopping = false;
  private source: AllStreamSubscription | undefined;
  private wakeIdle: (() => void) | undefined;

  constructor(
    private readonly from: CatchUpSource,
    /** Events at or before this position are never delivered (the server excludes it already). */
    private readonly after: GlobalPosition | undefined,
    private readonly handler: EventHandler,
    private readonly progress: { readonly onProgress?: (position: GlobalPosition) => void; readonly onCaughtUp?: () => void } = {},
  ) {
    this.done = this.run();
  }

  stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.wakeIdle?.();
      // Cancels the gRPC call; destroying the Readable wakes an iterator waiting for the next event.
      // A handler in flight finishes first: the loop checks `stopping` before the next delivery.
      const source = this.source;
      if (source) void unsubscribe(source).then(() => source.destroy());
    }
    return this.done.then(
      () => undefined,
      () => undefined,
    );
  }

  private async run(): Promise<void> {
    // Never call the handler synchronously from subscribeToAll().
    await new Promise((resolve) => setImmediate(resolve));
    if (this.stopping) return;
    let source: AllStreamSubscription | undefined;
    try {
      source = this.from.open();
    } catch (error) {
      throw toStoreError('subscribe', error);
    }
    if (!source) {
      await new Promise<void>((resolve) => (this.wakeIdle = resolve));
      return;
    }
    this.source = source;
    // Servers from 23.10 say when the subscription turns live; older ones only send checkpoints.
    const onCaughtUp = this.progress.onCaughtUp;
    if (onCaughtUp) source.on('caughtUp', () => onCaughtUp());

    let handlerFailure: { readonly error: unknown } | undefined;
    let sourceFailure: unknown;
    let cursor = this.after;
    try {
      for await (const resolved of source as AsyncIterable<AllStreamResolvedEvent>) {
        if (this.stopping) break;
        const position = positionOf(resolved);
        if (position && cursor && comparePositions(position, cursor) <= 0) continue;
        if (position) cursor = position;
        const event = this.from.accept(resolved);
        if (!event) continue;
        try {
          await this.handler(event);
        } catch (error) {
          handlerFailure = { error };
          break;
        }
        if (this.stopping) break;
        this.progress.onProgress?.(event.position);
      }
    } catch (error) {
      sourceFailure = error;
    } finally {
      await unsubscribe(source);
    }

    if (handlerFailure) throw handlerFailure.error;
    if (this.stopping) return;
    throw sourceFailure === undefined
      ? new EventStoreUnavailableError('EventStoreDB ended the subscription to $all')
      : toStoreError('subscription', sourceFailure);
  }
}

async function unsubscribe(source: AllStreamSubscription): Promise<void> {
  try {
    await source.unsubscribe();
  } catch {
    // The call failed already (that failure is what `done` reports) or is gone.
  }
}
