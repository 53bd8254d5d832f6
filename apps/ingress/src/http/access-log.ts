import type { FastifyInstance } from 'fastify';

/** Probes (the launcher, orchestrators) and Prometheus poll these: one log line per poll would drown the rest. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz', '/health/live', '/health/ready', '/metrics']);

/**
 * One log line per request, written by Fastify's own logger once the answer is sent: method,
 * path (never the query), status, time, peer. Never headers or bodies: they carry secrets and
 * untrusted data.
 */
export function logEachRequest(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const path = request.url.split('?', 1)[0];
    if (!UNLOGGED_PATHS.has(path)) {
      const status = reply.statusCode;
      const ms = Math.round(reply.elapsedTime);
      const fields = { method: request.method, path, status, ms, remoteAddress: request.ip };
      if (status >= 500) request.log.error(fields, `${request.method} ${path} ${status} ${ms} ms`);
      else request.log.info(fields, `${request.method} ${path} ${status} ${ms} ms`);
    }
    done();
  });
}
