import type { FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_TOKEN_REQUIRED, ADMIN_WWW_AUTHENTICATE, presentsAdminToken } from '../admin/admin-token.guard';
import { WEBHOOK_NOT_FOUND_BODY, problem, type ProblemCode } from './problem';
import { sendProblemBody } from './problem.reply';

const NOT_FOUND_BODY = JSON.stringify(problem('not_found', 'no such resource'));
const UNAUTHORIZED_BODY = JSON.stringify(problem('unauthorized', ADMIN_TOKEN_REQUIRED));

/**
 * Answers that need no body, given from the onRequest hook — before a byte of the body is read or
 * parsed: an unknown route (404) and an admin route without the admin token (401). The connection
 * is closed afterwards, so an unread body is not read to keep it alive either. False when the
 * request goes on.
 */
export function answerBeforeTheBody(request: FastifyRequest, reply: FastifyReply, adminTokenDigest: Buffer): boolean {
  if (request.is404) {
    const webhook = request.url.startsWith('/workflow-webhooks/');
    sendEarly(reply, 404, webhook ? 'webhook_not_found' : 'not_found', webhook ? WEBHOOK_NOT_FOUND_BODY : NOT_FOUND_BODY);
    return true;
  }
  if (isAdminRoute(request) && !presentsAdminToken(request.headers.authorization, adminTokenDigest)) {
    void reply.header('www-authenticate', ADMIN_WWW_AUTHENTICATE);
    sendEarly(reply, 401, 'unauthorized', UNAUTHORIZED_BODY);
    return true;
  }
  return false;
}

function isAdminRoute(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url !== undefined && (url === '/admin' || url.startsWith('/admin/'));
}

function sendEarly(reply: FastifyReply, status: number, code: ProblemCode, body: string): void {
  // A body still on its way is never read: close rather than drain it for keep-alive.
  if (hasBody(reply.request)) void reply.header('connection', 'close');
  sendProblemBody(reply, status, code, body);
}

function hasBody(request: FastifyRequest): boolean {
  const headers = request.raw.headers;
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}
