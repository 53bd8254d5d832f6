import { DispatchDeliveryUseCase, type DeliveryToDispatch, type DispatchOutcome } from '@wts/application';
import { SpanKind, contextOf, inSpan, tracingEnabled } from '@wts/observability';

/**
 * The dispatch of one delivery as a consumer span continuing the delivery's trace (the Kafka
 * header's traceparent, or the stored event's in the embedded shape); the run's append is its
 * child. While tracing is off, the plain use case.
 */
export class TracedDispatchDeliveryUseCase extends DispatchDeliveryUseCase {
  override execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    if (!tracingEnabled()) return super.execute(input);
    return inSpan('dispatch DeliveryAccepted', SpanKind.CONSUMER, contextOf(input.traceparent), async (span) => {
      span.setAttribute('wts.delivery_id', input.delivery.deliveryId);
      const outcome = await super.execute(input);
      span.setAttribute('wts.outcome', outcome.kind);
      return outcome;
    });
  }
}
