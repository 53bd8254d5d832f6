import { PayloadTooLargeException, BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminBodyError, readJsonBody } from './body-reader';
import type { OperatorAdmission } from '../access/operator.admission';
import { isAdminRoute } from '../access/admin-access.config';
import { answerUnknownRoute } from './early-answers';

/**
 * Route config flag: the route reads the raw body itself, after checking headers, and answers
 * before Fastify's body parsing (the public endpoint: webhook-trigger.route.ts).
 */
export const RAW_BODY_STREAM = { rawBodyStream: true } as const;

/**
 * Body parsing of the admin routes: JSON only, bounded by `adminMaxBytes`. Routes flagged
 * RAW_BODY_STREAM are left alone.
 */
export function installBodyParsing(fastify: FastifyInstance, adminMaxBytes: number, admission: OperatorAdmission): void {
  fastify.decorateRequest('operator', null);
  fastify.decorateRequest('adminTraceparent', '');
  fastify.addHook('onRequest', (request, reply, done) => {
    // The public endpoint reads its body itself and never waits here (a synchronous hook: no promise per delivery).
    if (isRawBodyRoute(request)) return done();
    // Unknown routes, and admin requests without a credential or the role, are answered here, before the body is read.
    if (answerUnknownRoute(request, reply)) return;
    normaliseContentType(request);
    if (!isAdminRoute(request)) return done();
    admission.admit(request, reply).then((admitted) => {
      if (admitted) done();
    }, done);
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    // Failures are handed on as values and raised by UnreadableBodyPipe, after the guards:
    // a request without a valid admin token gets 401 whatever its body.
    if (request.headers['content-type'] !== 'application/json') {
      done(null, new UnreadableBody(new UnsupportedMediaTypeException('admin requests must be application/json')));
      return;
    }
    readJsonBody(request.raw, adminMaxBytes).then(
      (body) => done(null, body),
      (error: unknown) => done(null, new UnreadableBody(toHttpError(error))),
    );
  });
}

/** A body that could not be read or parsed; raised by UnreadableBodyPipe once guards passed. */
export class UnreadableBody {
  constructor(readonly error: Error) {}
}

function toHttpError(error: unknown): Error {
  if (error instanceof AdminBodyError) {
    return error.statusCode === 413 ? new PayloadTooLargeException(error.message) : new BadRequestException(error.message);
  }
  return error instanceof Error ? error : new BadRequestException('unreadable body');
}

const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;|$)/i;

/**
 * Fastify refuses a syntactically invalid Content-Type (415) before any handler runs: on admin
 * routes the header is reduced to "JSON or not", so a malformed header is judged by our parser,
 * never refused by Fastify before authentication.
 */
function normaliseContentType(request: FastifyRequest): void {
  const contentType = request.raw.headers['content-type'];
  if (contentType !== undefined) {
    request.raw.headers['content-type'] = JSON_CONTENT_TYPE.test(contentType) ? 'application/json' : 'application/x-unsupported';
  }
}

function isRawBodyRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { rawBodyStream?: boolean } | undefined)?.rawBodyStream === true;
}
