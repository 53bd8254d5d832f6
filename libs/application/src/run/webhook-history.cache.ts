import { Streams, type WebhookEvent } from '@wts/contracts';
import { evolveWebhook, initialWebhookState, type WebhookState } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { StreamHistoryCache } from './stream-history.cache';

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
