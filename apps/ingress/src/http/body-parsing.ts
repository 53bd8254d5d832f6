import { PayloadTooLargeException, BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminBodyError, readJsonBody } from './body-reader';

/** Route config flag: the handler reads the raw body itself, after checking headers. */
export const RAW_BODY_STREAM = { rawBodyStream: true } as const;

/**
 * One content-type parser for everything. Routes flagged RAW_BODY_STREAM get the body unread
 * (the public endpoint decides 404 and 415 from headers first, then streams with a limit);
 * every other route accepts only JSON, bounded by `adminMaxBytes`.
 */
export function installBodyParsing(fastify: FastifyInstance, adminMaxBytes: number): void {
  // Fastify refuses a syntactically invalid Content-Type (415) before any handler runs; on raw
  // routes the header is set aside here and judged by the use case after authentication.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const contentType = request.raw.headers['content-type'];
    if (isRawBodyRoute(request)) {
      ORIGINAL_CONTENT_TYPE.set(request.raw, contentType);
      request.raw.headers['content-type'] = 'application/octet-stream';
    } else if (contentType !== undefined) {
      // Admin routes: reduced to "JSON or not", so a malformed header is judged by our parser
      // (after the admin token guard), never refused by Fastify before authentication.
      request.raw.headers['content-type'] = JSON_CONTENT_TYPE.test(contentType) ? 'application/json' : 'application/x-unsupported';
    }
    done();
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    if (isRawBodyRoute(request)) {
      done(null, undefined);
      return;
    }
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

const ORIGINAL_CONTENT_TYPE = new WeakMap<object, string | undefined>();
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;|$)/i;

function isRawBodyRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { rawBodyStream?: boolean } | undefined)?.rawBodyStream === true;
}

/** The Content-Type the client sent on a raw-body route (see installBodyParsing). */
export function originalContentType(request: FastifyRequest): string | undefined {
  return ORIGINAL_CONTENT_TYPE.has(request.raw) ? ORIGINAL_CONTENT_TYPE.get(request.raw) : request.headers['content-type'];
}
