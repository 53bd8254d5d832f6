import type { FastifyInstance } from 'fastify';
import { problemCodeOf } from './problem.presenter';

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
      const code = problemCodeOf(reply);
      const fields = { method: request.method, path, status, ms, remoteAddress: request.ip, ...(code === undefined ? {} : { code }) };
      const line = `${request.method} ${path} ${status}${code === undefined ? '' : ` ${code}`} ${ms} ms`;
      if (status >= 500) request.log.error(fields, line);
      else request.log.info(fields, line);
    }
    done();
  });
}
