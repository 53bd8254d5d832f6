import type { HandshakeAnswer, RateLimitState, TriggerWebhookOutcome } from '@wts/application';
import type { FastifyReply } from 'fastify';
import { WEBHOOK_NOT_FOUND_BODY, WEBHOOK_UNAUTHORIZED_BODY, problem } from '../http/problem';
import { sendProblemBody } from '../http/problem.presenter';

const POLICY = 'per-webhook';

/** IETF RateLimit fields (structured-field form) and Retry-After on 429. */
function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': `"${POLICY}";q=${state.limit};w=${state.windowSeconds}`,
    ratelimit: `"${POLICY}";r=${state.remaining};t=${state.resetSeconds}`,
  };
  if (!state.allowed) headers['retry-after'] = String(Math.max(1, state.resetSeconds));
  return headers;
}

/** Maps the use case's outcome to status, headers and body. */
export function presentTriggerOutcome(reply: FastifyReply, outcome: TriggerWebhookOutcome): void {
  if (outcome.kind === 'handshake') {
    presentHandshake(reply, outcome.answer);
    return;
  }
  if (outcome.kind === 'filtered') {
    void reply
      .status(200)
      .headers(rateLimitHeaders(outcome.rateLimit))
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(outcome.body));
    return;
  }
  if (outcome.kind === 'accepted') {
    void reply
      .status(202)
      .headers(rateLimitHeaders(outcome.rateLimit))
      .headers(outcome.replayed ? { 'idempotent-replayed': 'true' } : {})
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(outcome.body));
    return;
  }
  if (outcome.code === 'webhook_not_found') {
    sendProblemBody(reply, 404, 'webhook_not_found', WEBHOOK_NOT_FOUND_BODY);
    return;
  }
  if (outcome.code === 'webhook_unauthorized') {
    sendProblemBody(reply, 401, 'webhook_unauthorized', WEBHOOK_UNAUTHORIZED_BODY);
    return;
  }
  const body = problem(outcome.code, outcome.detail, outcome.errors);
  if (outcome.rateLimit) void reply.headers(rateLimitHeaders(outcome.rateLimit));
  if (outcome.code === 'payload_too_large') void reply.header('connection', 'close');
  // RFC 9110 §15.5.16: say which codings would have been accepted.
  if (outcome.code === 'unsupported_content_encoding') void reply.header('accept-encoding', 'identity');
  sendProblemBody(reply, body.status, body.code, JSON.stringify(body));
}

/**
 * A provider's handshake, answered as its documentation has it: the status, the content type and
 * the body exactly (a 204 with none). `nosniff`: a challenge echoed as text is never read as anything else.
 */
function presentHandshake(reply: FastifyReply, answer: HandshakeAnswer): void {
  void reply.status(answer.status).header('x-content-type-options', 'nosniff');
  if (answer.contentType !== undefined) void reply.header('content-type', answer.contentType);
  void reply.send(answer.status === 204 ? undefined : answer.body);
}
