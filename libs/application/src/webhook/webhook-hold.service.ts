import { Streams } from '@wts/contracts';
import { isRejection, webhookDecider, type Rejection, type WebhookCommand } from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import type { UseCaseContext } from '../shared/use-case.context';
import type { WebhookAdminService } from './webhook-admin.service';
import type { WebhookView } from './webhook.view';

export interface HoldInput {
  /** ISO 8601 time after which the service releases the hold by itself; null: only an operator does. */
  readonly releaseAt: string | null;
}

export interface ReleaseInput {
  /** Park what the hold kept (`discarded_by_operator`, re-dispatchable) instead of running it. */
  readonly discard: boolean;
  /** With discard: the hold the operator looked at (its `since`). */
  readonly heldSince?: string;
}

/** Who released an expired hold, as the event records it. */
export const HOLD_EXPIRY_ACTOR = 'hold expiry';

/**
 * Hold and release, the operator's lever in an incident: while held, deliveries are accepted (202)
 * and kept exactly as before, and the dispatcher makes no run for them; the release judges each as
 * things then stand and makes their runs, in acceptance order, or parks them — all of them with
 * `discard` (ReleaseDrainWorker). The answers are the webhook's view.
 */
export class WebhookHoldService {
  constructor(
    private readonly context: UseCaseContext,
    private readonly webhooks: WebhookAdminService,
  ) {}

  hold(routineId: string, input: HoldInput, call: AdminCall): Promise<WebhookView | Rejection> {
    return this.webhooks.decide(routineId, call, (now) => ({
      type: 'HoldWebhook',
      heldBy: call.actor.display,
      releaseAt: input.releaseAt,
      now,
    }));
  }

  /** The audit trail records how many deliveries were waiting, as the operator was shown them. */
  release(routineId: string, input: ReleaseInput, call: AdminCall): Promise<WebhookView | Rejection> {
    return this.webhooks.decide(routineId, call, async (now, routine) => ({
      type: 'ReleaseWebhook',
      releasedBy: call.actor.display,
      expired: false,
      discard: input.discard,
      ...(input.heldSince === undefined ? {} : { heldSince: input.heldSince }),
      heldDeliveries: (await this.webhooks.present(routine)).held_deliveries,
      now,
    }));
  }

  /**
   * Releases every hold whose expiry has passed (called now and then by each ingress replica: the
   * decider releases only a hold still expired when it decides, and the stream's expected revision
   * lets one replica's release through, so there is one WebhookReleased per hold). Returns how many
   * this call released.
   */
  async releaseExpired(): Promise<number> {
    const now = this.context.clock.now();
    let released = 0;
    const failures: unknown[] = [];
    for (const webhook of this.context.config.heldWebhooks()) {
      const releaseAt = webhook.hold?.releaseAt;
      if (!releaseAt || Date.parse(releaseAt) > now.getTime()) continue;
      const command: WebhookCommand = { type: 'ReleaseWebhook', releasedBy: HOLD_EXPIRY_ACTOR, expired: true, now: now.toISOString() };
      try {
        const events = await this.context.runAsService(Streams.webhook(webhook.webhookId), webhookDecider, command);
        if (!isRejection(events) && events.length > 0) released += 1;
      } catch (error) {
        // One webhook's failure (the store down) does not keep the others held: the next look tries it again.
        failures.push(error);
      }
    }
    if (failures.length > 0)
      throw new AggregateError(failures, `${failures.length} expired hold(s) could not be released (${released} were)`);
    return released;
  }
}
