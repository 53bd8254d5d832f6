import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { RejectionError } from '@wts/domain';
import { AppendOutcomeUnknownError } from '@wts/application';
import { EventStoreUnavailableError } from '@wts/event-store';
import { ReadModelUnavailableError } from '@wts/read-models';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WEBHOOK_NOT_FOUND_BODY, problem, type Problem, type ProblemCode } from './problem';
import { sendProblemBody } from './problem.presenter';

const CODE_BY_HTTP_STATUS: Record<number, ProblemCode> = {
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  503: 'store_unavailable',
};

/** One place where errors become HTTP: problem+json with a stable code. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendProblemFor(exception, host.switchToHttp().getResponse<FastifyReply>());
  }
}

const logger = new Logger('Problem');

export const APPEND_OUTCOME_UNKNOWN_DETAIL =
  'the event store did not confirm the append: this delivery may or may not have been accepted. ' +
  'Retrying with the same X-Service-Idempotency-Key is safe (an accepted delivery is answered again, never created twice); ' +
  'a retry without that header may start a second run';

/** The answer for an error, on Nest's routes (ProblemFilter) and on the webhook route alike. */
export function sendProblemFor(exception: unknown, reply: FastifyReply): void {
  const body = toProblem(exception);
  if (body.status >= 500) logger.error({ err: exception }, body.detail ?? body.title);
  if (body.status === 503) void reply.header('retry-after', '5');
  sendProblemBody(reply, body.status, body.code, JSON.stringify(body));
}

function toProblem(exception: unknown): Problem {
  if (exception instanceof RejectionError) return problem(exception.rejection.code, exception.rejection.detail);
  if (exception instanceof AppendOutcomeUnknownError) return problem('store_outcome_unknown', APPEND_OUTCOME_UNKNOWN_DETAIL);
  if (exception instanceof EventStoreUnavailableError)
    return problem('store_unavailable', 'the event store is unavailable; nothing was accepted, retry later');
  if (exception instanceof ReadModelUnavailableError)
    return problem('read_model_unavailable', 'the read-model database is unavailable; retry later');
  if (exception instanceof HttpException) return fromHttpException(exception);
  return problem('internal_error', 'an unexpected error occurred');
}

function fromHttpException(exception: HttpException): Problem {
  const status = exception.getStatus();
  const response = exception.getResponse();
  const messages = typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : undefined;
  if (status === 400) {
    const errors = Array.isArray(messages) ? messages.map(String) : [String(messages ?? exception.message)];
    return problem('validation_failed', 'the request body is invalid', errors);
  }
  if (status === 413) return problem('payload_too_large', exception.message);
  if (status === 415) return problem('unsupported_media_type', exception.message);
  const code = CODE_BY_HTTP_STATUS[status];
  return code ? problem(code, exception.message) : problem('internal_error', exception.message);
}

/**
 * Router-level errors (undecodable URL, overlong parameter) never reach Nest's filters. Under
 * the public path they are an unknown endpoint: the one identical 404; elsewhere a plain 404.
 */
export function answerFrameworkError(_error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const webhook = request.url.startsWith('/workflow-webhooks/');
  sendProblemBody(
    reply,
    404,
    webhook ? 'webhook_not_found' : 'not_found',
    webhook ? WEBHOOK_NOT_FOUND_BODY : JSON.stringify(problem('not_found', 'no such resource')),
  );
}
