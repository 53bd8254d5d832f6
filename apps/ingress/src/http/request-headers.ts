import type { FastifyRequest } from 'fastify';

/** A single header value; repeated headers count as absent-or-invalid, never merged. */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
