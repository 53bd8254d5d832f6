import type { FastifyReply, FastifyRequest } from 'fastify';
import { WEBHOOK_NOT_FOUND_BODY, problem, type ProblemCode } from './problem';
import { sendProblemBody } from './problem.presenter';

const NOT_FOUND_BODY = JSON.stringify(problem('not_found', 'no such resource'));

/**
 * An unknown route's 404, given from the onRequest hook — before a byte of the body is read or
 * parsed. False when the route exists (the admin API's door, OperatorAdmission, comes next).
 */
export function answerUnknownRoute(request: FastifyRequest, reply: FastifyReply): boolean {
  if (!request.is404) return false;
  const webhook = request.url.startsWith('/workflow-webhooks/');
  sendEarly(reply, 404, webhook ? 'webhook_not_found' : 'not_found', webhook ? WEBHOOK_NOT_FOUND_BODY : NOT_FOUND_BODY);
  return true;
}

/** An answer given before the body: the connection is closed afterwards, so an unread body is not read to keep it alive either. */
export function sendEarly(reply: FastifyReply, status: number, code: ProblemCode, body: string): void {
  // A body still on its way is never read: close rather than drain it for keep-alive.
  if (hasBody(reply.request)) void reply.header('connection', 'close');
  sendProblemBody(reply, status, code, body);
}

function hasBody(request: FastifyRequest): boolean {
  const headers = request.raw.headers;
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}
