import { Controller, Inject, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { NotifiedDispatchOutcome } from '@wts/application';
import { DeliveryAcceptedMessage, type InboundEvent } from '@wts/messaging';
import { DispatchFailureFilter } from './dispatch-failure.filter';
import type { NotifiedDispatch } from './metered-dispatch.instrumentation';

/** The token of the handler's use case (decorated: composeDispatcher). */
export const NOTIFIED_DISPATCH = Symbol('NotifiedDispatch');

/**
 * webhooks.events.v1 → exactly one run per accepted delivery (the use case is idempotent). The
 * message only says which delivery: the use case reads it from the event store and creates the run
 * from what the store holds (its data, its position), never from the message.
 */
@Controller()
@UseFilters(new DispatchFailureFilter())
export class DeliveryAcceptedController {
  constructor(@Inject(NOTIFIED_DISPATCH) private readonly dispatch: NotifiedDispatch) {}

  @EventPattern(DeliveryAcceptedMessage.eventType)
  async onDeliveryAccepted(@Payload() event: InboundEvent<DeliveryAcceptedMessage.Value>): Promise<NotifiedDispatchOutcome> {
    return this.dispatch.execute({
      eventId: event.eventId,
      streamId: event.streamId,
      traceparent: event.traceparent,
      claimed: event.value,
    });
  }
}
