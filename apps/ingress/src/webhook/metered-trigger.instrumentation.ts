import type { TriggerWebhookRequest, TriggerWebhookOutcome } from '@wts/application';
import { EventStoreUnavailableError } from '@wts/event-store';
import { metrics } from '@wts/observability';
import type { TriggerWebhook } from './webhook-trigger.route';

/**
 * The public endpoint's use case, counted: accepted, replayed, rejected by code (the one 404 is
 * one code, whatever its cause), rate-limit decisions, and the time to a 202. A counter increment
 * and one histogram observation per request; nothing allocated.
 */
export function meteredTrigger(trigger: TriggerWebhook): TriggerWebhook {
  return {
    async execute(command: TriggerWebhookRequest): Promise<TriggerWebhookOutcome> {
      const started = performance.now();
      let outcome: TriggerWebhookOutcome;
      try {
        outcome = await trigger.execute(command);
      } catch (error) {
        metrics.rejection(error instanceof EventStoreUnavailableError ? 'store_unavailable' : 'internal_error');
        throw error;
      }
      if (outcome.rateLimit) (outcome.rateLimit.allowed ? metrics.rateLimitAllowed : metrics.rateLimitLimited).inc();
      if (outcome.kind === 'rejected') metrics.rejection(outcome.code);
      else if (outcome.kind === 'handshake') return outcome;
      else if (outcome.kind === 'filtered') metrics.deliveriesFiltered.inc();
      else if (outcome.replayed) metrics.idempotentReplays.inc();
      else {
        metrics.deliveriesAccepted.inc();
        if (outcome.filterError) metrics.filterErrors.inc();
        metrics.acceptanceSeconds.observe((performance.now() - started) / 1000);
      }
      return outcome;
    },
  };
}
