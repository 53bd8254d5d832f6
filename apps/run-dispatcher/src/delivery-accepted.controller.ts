import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { DispatchDeliveryUseCase, type DispatchOutcome } from '@wts/application';
import { DeliveryAcceptedMessage, type InboundEvent } from '@wts/messaging';
import { countDispatch } from './dispatch.metrics';
import { DispatchFailureFilter } from './dispatch-failure.filter';

/** webhooks.events.v1 → exactly one run per accepted delivery (the use case is idempotent). */
@Controller()
@UseFilters(new DispatchFailureFilter())
export class DeliveryAcceptedController {
  constructor(private readonly dispatch: DispatchDeliveryUseCase) {}

  @EventPattern(DeliveryAcceptedMessage.eventType)
  async onDeliveryAccepted(@Payload() event: InboundEvent<DeliveryAcceptedMessage.Value>): Promise<DispatchOutcome> {
    return countDispatch(await this.dispatch.execute({ delivery: event.value, position: event.position, eventId: event.eventId, traceparent: event.traceparent }));
  }
}
