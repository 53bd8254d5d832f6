import type { TriggerWebhookRequest, TriggerWebhookOutcome } from '@wts/application';
import { SpanKind, contextOf, inSpan, traceparentOf, tracingEnabled } from '@wts/observability';
import type { TriggerWebhook } from './webhook-trigger.route';

const ROUTE = '/workflow-webhooks/{webhook_id}';

/**
 * With tracing on, the request is a server span (continuing the caller's `traceparent`), and the
 * use case continues from it. While tracing is off, a plain delegation.
 */
export function tracedTrigger(trigger: TriggerWebhook): TriggerWebhook {
  const traced = (command: TriggerWebhookRequest): Promise<TriggerWebhookOutcome> =>
    inSpan(`${command.method ?? 'POST'} ${ROUTE}`, SpanKind.SERVER, contextOf(command.traceparent), async (span) => {
      span.setAttribute('http.request.method', command.method ?? 'POST');
      span.setAttribute('http.route', ROUTE);
      const outcome = await trigger.execute({ ...command, traceparent: traceparentOf(span) });
      span.setAttribute('wts.outcome', outcomeName(outcome));
      return outcome;
    });
  return { execute: (command) => (tracingEnabled() ? traced(command) : trigger.execute(command)) };
}

function outcomeName(outcome: TriggerWebhookOutcome): string {
  if (outcome.kind === 'handshake' || outcome.kind === 'filtered') return outcome.kind;
  return outcome.kind === 'accepted' ? (outcome.replayed ? 'replayed' : 'accepted') : outcome.code;
}
