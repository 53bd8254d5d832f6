import { Streams, type RoutineEvent, type WebhookEvent } from '@wts/contracts';
import { evolveRoutine, evolveWebhook, initialWebhookState, type Routine, type WebhookState } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { StreamHistoryCache } from './stream-history.cache';

/** Each routine as it was at a given place in $all (null: not created yet). */
export class RoutineHistoryCache extends StreamHistoryCache<Routine, RoutineEvent> {
  constructor(store: EventStore) {
    super(store, { streamOf: Streams.routine, initial: null, evolve: evolveRoutine });
  }
}

/** Each webhook as it was at a given place in $all: whether a delivery there was accepted while held. */
export class WebhookHistoryCache extends StreamHistoryCache<WebhookState, WebhookEvent> {
  constructor(store: EventStore) {
    super(store, { streamOf: Streams.webhook, initial: initialWebhookState(), evolve: evolveWebhook });
  }

  /** Whether the webhook has been released (no longer held) at some point after `position`. */
  async releasedSince(webhookId: string, position: GlobalPosition): Promise<boolean> {
    return (await this.since(webhookId, position)).some((state) => state.status !== 'not_configured' && state.hold === null);
  }
}
