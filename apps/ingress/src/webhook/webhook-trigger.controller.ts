import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { TriggerWebhookUseCase } from '@wts/application';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readLimitedBody } from '../http/body-reader';
import { RAW_BODY_STREAM, originalContentType } from '../http/body-parsing';
import { headerValue } from '../http/request-headers';
import { presentTriggerOutcome } from './trigger-outcome.presenter';

/** The public endpoint: translate the request, delegate, present the outcome. */
@Controller('workflow-webhooks')
export class WebhookTriggerController {
  constructor(private readonly triggerWebhook: TriggerWebhookUseCase) {}

  @Post(':webhookId')
  @HttpCode(202)
  @RouteConfig(RAW_BODY_STREAM)
  async trigger(@Param('webhookId') webhookId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const outcome = await this.triggerWebhook.execute({
      webhookId,
      authorization: headerValue(request, 'authorization'),
      contentType: originalContentType(request),
      accountHeader: headerValue(request, 'x-service-account-email'),
      idempotencyKey: headerValue(request, 'x-service-idempotency-key'),
      traceparent: headerValue(request, 'traceparent'),
      sourceAddress: request.ip,
      readBody: (maxBytes) => readLimitedBody(request.raw, maxBytes),
    });
    presentTriggerOutcome(reply, outcome);
  }
}
