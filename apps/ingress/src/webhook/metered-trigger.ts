import type { TriggerWebhookRequest, TriggerWebhookOutcome, TriggerWebhookUseCase } from '@wts/application';
import { EventStoreUnavailableError } from '@wts/event-store';
import { SpanKind, contextOf, inSpan, metrics, traceparentOf, tracingEnabled } from '@wts/observability';

const ROUTE = '/workflow-webhooks/{webhook_id}';

/**
 * The public endpoint's use case, counted: accepted, replayed, rejected by code (the one 404 is
 * one code, whatever its cause), rate-limit decisions, and the time to a 202. A counter increment
 * and one histogram observation per request; nothing allocated. With tracing on, the request is
 * a server span (continuing the caller's `traceparent`), and the use case continues from it.
 */
export function meteredTrigger(useCase: TriggerWebhookUseCase): Pick<TriggerWebhookUseCase, 'execute'> {
  const counted = async (command: TriggerWebhookRequest): Promise<TriggerWebhookOutcome> => {
    const started = performance.now();
    let outcome: TriggerWebhookOutcome;
    try {
      outcome = await useCase.execute(command);
    } catch (error) {
      metrics.rejection(error instanceof EventStoreUnavailableError ? 'store_unavailable' : 'internal_error');
      throw error;
    }
    if (outcome.rateLimit) (outcome.rateLimit.allowed ? metrics.rateLimitAllowed : metrics.rateLimitLimited).inc();
    if (outcome.kind === 'rejected') metrics.rejection(outcome.code);
    else if (outcome.replayed) metrics.idempotentReplays.inc();
    else {
      metrics.deliveriesAccepted.inc();
      metrics.acceptanceSeconds.observe((performance.now() - started) / 1000);
    }
    return outcome;
  };
  const traced = (command: TriggerWebhookRequest): Promise<TriggerWebhookOutcome> =>
    inSpan(`POST ${ROUTE}`, SpanKind.SERVER, contextOf(command.traceparent), async (span) => {
      span.setAttribute('http.request.method', 'POST');
      span.setAttribute('http.route', ROUTE);
      const outcome = await counted({ ...command, traceparent: traceparentOf(span) });
      span.setAttribute('wts.outcome', outcome.kind === 'accepted' ? (outcome.replayed ? 'replayed' : 'accepted') : outcome.code);
      return outcome;
    });
  return { execute: (command) => (tracingEnabled() ? traced(command) : counted(command)) };
}
