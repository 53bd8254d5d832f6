import type { TriggerWebhookUseCase } from '@wts/application';
import type { HandshakeQuery } from '@wts/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readLimitedBody } from '../http/body-reader';
import { RAW_BODY_STREAM } from '../http/body-parsing';
import { sendProblemFor } from '../http/problem.filter';
import { headerValue } from '../http/request-headers';
import { presentTriggerOutcome } from './trigger-outcome.presenter';

/** What the route delegates to: the use case, or a decorator of it (metrics, tracing). */
export type TriggerWebhook = Pick<TriggerWebhookUseCase, 'execute'>;

/**
 * The public endpoint, on Fastify directly: translate the request, delegate, present the outcome.
 * It answers from the route's onRequest hook, so Fastify never parses the body (the use case
 * reads it, with its limit, only after the header checks) and the request skips Nest's router,
 * pipes and filters: the hot path is this function, the use case and the store.
 */
export function registerWebhookTriggerRoute(fastify: FastifyInstance, triggerWebhook: TriggerWebhook): void {
  // POST: deliveries and signed handshakes. GET: X's, Meta's and Graph's handshakes only — any other
  // GET is the one 404 (HEAD is not routed: the unknown route's 404, as OPTIONS and the rest).
  for (const method of ['POST', 'GET'] as const) {
    fastify.route({
      method,
      url: '/workflow-webhooks/:webhookId',
      config: RAW_BODY_STREAM,
      exposeHeadRoute: false,
      onRequest: async (request, reply) => {
        await trigger(triggerWebhook, method, request, reply);
        return reply;
      },
      // Never reached: onRequest has answered.
      handler: async (_request, reply) => reply,
    });
  }
}

async function trigger(
  triggerWebhook: TriggerWebhook,
  method: 'GET' | 'POST',
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  try {
    const outcome = await triggerWebhook.execute({
      method,
      query: handshakeQuery(request),
      webhookId: (request.params as { webhookId: string }).webhookId,
      authorization: headerValue(request, 'authorization'),
      contentType: headerValue(request, 'content-type'),
      contentEncoding: headerValue(request, 'content-encoding'),
      accountHeader: headerValue(request, 'x-service-account-email'),
      idempotencyKey: headerValue(request, 'x-service-idempotency-key'),
      traceparent: headerValue(request, 'traceparent'),
      sourceAddress: request.ip,
      signature: {
        webhookId: headerValue(request, 'webhook-id'),
        webhookTimestamp: headerValue(request, 'webhook-timestamp'),
        webhookSignature: headerValue(request, 'webhook-signature'),
        hubSignature256: headerValue(request, 'x-hub-signature-256'),
        githubDelivery: headerValue(request, 'x-github-delivery'),
        githubEvent: headerValue(request, 'x-github-event'),
        stripeSignature: headerValue(request, 'stripe-signature'),
        shopifyHmacSha256: headerValue(request, 'x-shopify-hmac-sha256'),
        shopifyEventId: headerValue(request, 'x-shopify-event-id'),
        shopifyWebhookId: headerValue(request, 'x-shopify-webhook-id'),
        shopifyTopic: headerValue(request, 'x-shopify-topic'),
        gitlabToken: headerValue(request, 'x-gitlab-token'),
        gitlabIdempotencyKey: headerValue(request, 'idempotency-key'),
        gitlabEventUuid: headerValue(request, 'x-gitlab-event-uuid'),
        linearSignature: headerValue(request, 'linear-signature'),
        linearDelivery: headerValue(request, 'linear-delivery'),
        sentryHookSignature: headerValue(request, 'sentry-hook-signature'),
        sentryRequestId: headerValue(request, 'request-id'),
        sentryHookResource: headerValue(request, 'sentry-hook-resource'),
        pagerdutySignature: headerValue(request, 'x-pagerduty-signature'),
        zendeskWebhookSignature: headerValue(request, 'x-zendesk-webhook-signature'),
        zendeskWebhookSignatureTimestamp: headerValue(request, 'x-zendesk-webhook-signature-timestamp'),
        zendeskInvocationId: headerValue(request, 'x-zendesk-webhook-invocation-id'),
        svixId: headerValue(request, 'svix-id'),
        svixTimestamp: headerValue(request, 'svix-timestamp'),
        svixSignature: headerValue(request, 'svix-signature'),
        slackSignature: headerValue(request, 'x-slack-signature'),
        slackTimestamp: headerValue(request, 'x-slack-request-timestamp'),
        zoomSignature: headerValue(request, 'x-zm-signature'),
        zoomTimestamp: headerValue(request, 'x-zm-request-timestamp'),
        discordSignature: headerValue(request, 'x-signature-ed25519'),
        discordTimestamp: headerValue(request, 'x-signature-timestamp'),
        twitchSignature: headerValue(request, 'twitch-eventsub-message-signature'),
        twitchMessageId: headerValue(request, 'twitch-eventsub-message-id'),
        twitchTimestamp: headerValue(request, 'twitch-eventsub-message-timestamp'),
        twitchMessageType: headerValue(request, 'twitch-eventsub-message-type'),
        xSignature: headerValue(request, 'x-twitter-webhooks-signature'),
      },
      headers: () => singleValued(request.headers),
      readBody: (maxBytes) => readLimitedBody(request.raw, maxBytes),
    });
    presentTriggerOutcome(reply, outcome);
  } catch (error) {
    sendProblemFor(error, reply);
  }
}

/** The query members handshakes are read from, each its single (URL-decoded) value; repeated ones count as absent. */
function handshakeQuery(request: FastifyRequest): HandshakeQuery {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const one = (name: string): string | undefined => {
    const value = Object.prototype.hasOwnProperty.call(query, name) ? query[name] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  return {
    crcToken: one('crc_token'),
    hubMode: one('hub.mode'),
    hubVerifyToken: one('hub.verify_token'),
    hubChallenge: one('hub.challenge'),
    validationToken: one('validationToken'),
  };
}

/** Headers as a filter sees them: one string each (repeated ones joined as Node joins them, set-cookie with "; "). */
function singleValued(headers: FastifyRequest['headers']): Record<string, string> {
  const single: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') single[name] = value;
    else if (Array.isArray(value)) single[name] = value.join('; ');
  }
  return single;
}
