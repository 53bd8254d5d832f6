import type { DeliveryToDispatch, DispatchDelivery, DispatchOutcome } from '@wts/application';
import { SpanKind, contextOf, inSpan, tracingEnabled } from './tracing';

/**
 * The dispatch of one delivery as a consumer span continuing the delivery's trace (the Kafka
 * header's traceparent, or the stored event's in the embedded shape); the run's append is its
 * child. While tracing is off, a plain delegation.
 */
export function tracedDispatch(dispatch: DispatchDelivery): DispatchDelivery {
  const traced = (input: DeliveryToDispatch): Promise<DispatchOutcome> =>
    inSpan('dispatch DeliveryAccepted', SpanKind.CONSUMER, contextOf(input.traceparent), async (span) => {
      span.setAttribute('wts.delivery_id', input.delivery.deliveryId);
      const outcome = await dispatch.execute(input);
      span.setAttribute('wts.outcome', outcome.kind);
      return outcome;
    });
  return {
    execute: (input) => (tracingEnabled() ? traced(input) : dispatch.execute(input)),
  };
}
