import type { WebhookEvent } from '@wts/contracts';
import { accept, reject, type Decision } from '../shared/decision';
import type { WebhookCommand, WebhookState } from './webhook.decider';

/**
 * Hold: an enabled webhook only (a disabled one answers 404 and accepts nothing to hold). Holding a
 * held webhook again changes only its expiry (the same expiry: nothing to record). An expiry must be
 * later than now.
 */
export function decideHold(command: Extract<WebhookCommand, { type: 'HoldWebhook' }>, state: WebhookState): Decision<WebhookEvent> {
  if (state.status === 'not_configured') return reject('webhook_not_configured', 'the routine has no webhook');
  if (state.status !== 'enabled') return reject('webhook_not_enabled', 'only an enabled webhook can be held');
  if (command.releaseAt !== null && Date.parse(command.releaseAt) <= Date.parse(command.now)) {
    return reject('validation_failed', 'release_at must be later than now');
  }
  if (state.hold && state.hold.releaseAt === command.releaseAt) return accept();
  return accept({
    type: 'WebhookHeld',
    data: { webhookId: state.webhookId, heldAt: command.now, heldBy: command.heldBy, releaseAt: command.releaseAt },
  });
}

/**
 * Release: a webhook that is not held has nothing to release (no events: a repeated click is
 * harmless). The service's own release (`expired`) happens only once the hold's expiry has passed,
 * so a hold given a later expiry in the meantime is left alone.
 */
export function decideRelease(command: Extract<WebhookCommand, { type: 'ReleaseWebhook' }>, state: WebhookState): Decision<WebhookEvent> {
  if (state.status === 'not_configured') return reject('webhook_not_configured', 'the routine has no webhook');
  if (command.expired && command.discard) return reject('validation_failed', 'an expiring hold is released, never discarded');
  // A discard names what it discards: a hold released meanwhile (its deliveries running) or replaced
  // by another hold is refused, never a silent no-op nor another hold's deliveries discarded.
  if (command.discard && !state.hold)
    return reject('webhook_not_held', 'the webhook is not held (released meanwhile?): nothing was discarded');
  if (command.discard && command.heldSince !== undefined && command.heldSince !== state.hold?.since) {
    return reject('hold_changed', 'the webhook was released and held again since: nothing was discarded; look at the current hold first');
  }
  if (!state.hold) return accept();
  if (command.expired && (state.hold.releaseAt === null || Date.parse(state.hold.releaseAt) > Date.parse(command.now))) return accept();
  const { heldDeliveries } = command;
  return accept({
    type: 'WebhookReleased',
    data: {
      webhookId: state.webhookId,
      releasedAt: command.now,
      releasedBy: command.releasedBy,
      expired: command.expired,
      discard: command.discard === true,
      ...(heldDeliveries === undefined || heldDeliveries === null ? {} : { heldDeliveries }),
    },
  });
}
