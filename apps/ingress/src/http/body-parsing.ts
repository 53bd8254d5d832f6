import { PayloadTooLargeException, BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { AdminBodyError, readJsonBody } from './body-reader';

/** Route config flag: the handler reads the raw body itself, after checking headers. */
export const RAW_BODY_STREAM = { rawBodyStream: true } as const;

/**
 * One content-type parser for everything. Routes flagged RAW_BODY_STREAM get the body unread
 * (the public endpoint decides 404 and 415 from headers first, then streams with a limit);
 * every other route accepts only JSON, bounded by `adminMaxBytes`.
 */
export function installBodyParsing(fastify: FastifyInstance, adminMaxBytes: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    const config = request.routeOptions.config as { rawBodyStream?: boolean } | undefined;
    if (config?.rawBodyStream === true) {
      done(null, undefined);
      return;
    }
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      done(new UnsupportedMediaTypeException('admin requests must be application/json'), undefined);
      return;
    }
    readJsonBody(request.raw, adminMaxBytes).then(
      (body) => done(null, body),
      (error: unknown) => done(toHttpError(error), undefined),
    );
  });
}

function toHttpError(error: unknown): Error {
  if (error instanceof AdminBodyError) {
    return error.statusCode === 413 ? new PayloadTooLargeException(error.message) : new BadRequestException(error.message);
  }
  return error instanceof Error ? error : new BadRequestException('unreadable body');
}
