import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { DispatchNotifiedDeliveryUseCase, type NotifiedDispatchOutcome } from '@wts/application';
import { DeliveryAcceptedMessage, type InboundEvent } from '@wts/messaging';
import { countNotifiedDispatch } from './dispatch.metrics';
import { DispatchFailureFilter } from './dispatch-failure.filter';

/**
 * webhooks.events.v1 → exactly one run per accepted delivery (the use case is idempotent). The
 * message only says which delivery: the use case reads it from the event store and creates the run
 * from what the store holds (its data, its position), never from the message.
 */
@Controller()
@UseFilters(new DispatchFailureFilter())
export class DeliveryAcceptedController {
  constructor(private readonly dispatch: DispatchNotifiedDeliveryUseCase) {}

  @EventPattern(DeliveryAcceptedMessage.eventType)
  async onDeliveryAccepted(@Payload() event: InboundEvent<DeliveryAcceptedMessage.Value>): Promise<NotifiedDispatchOutcome> {
    return countNotifiedDispatch(await this.dispatch.execute({ eventId: event.eventId, streamId: event.streamId, traceparent: event.traceparent, claimed: event.value }));
  }
}
