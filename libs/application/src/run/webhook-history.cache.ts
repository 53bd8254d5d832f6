import { Streams, type WebhookEvent } from '@wts/contracts';
import { evolveWebhook, initialWebhookState, type WebhookState } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { StreamHistoryCache } from './stream-history.cache';

/** The release that ended a hold: where it sits in $all, and whether the operator discarded what it kept. */
export interface HoldRelease {
  readonly position: GlobalPosition;
  readonly discard: boolean;
  readonly releasedBy: string;
}

/** Each webhook as it was at a given place in $all: whether a delivery there was accepted while held. */
export class WebhookHistoryCache extends StreamHistoryCache<WebhookState, WebhookEvent> {
  constructor(store: EventStore) {
    super(store, { streamOf: Streams.webhook, initial: initialWebhookState(), evolve: evolveWebhook });
  }

  /** The first release after `position` (the one that ended the hold a delivery there was accepted under); undefined: still held. */
  async releaseAfter(webhookId: string, position: GlobalPosition): Promise<HoldRelease | undefined> {
    for (const change of await this.since(webhookId, position)) {
      if (change.event.type === 'WebhookReleased') {
        const { discard, releasedBy } = change.event.data;
        return { position: change.position, discard: discard === true, releasedBy };
      }
    }
    return undefined;
  }
}
