import type { Params } from 'nestjs-pino';

/** Paths never written to logs: credentials and secrets, wherever they appear. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-admin-token"]',
  'res.headers["set-cookie"]',
  'secret',
  '*.secret',
  'adminToken',
  '*.adminToken',
  'authorization',
  '*.authorization',
];

export function loggerParams(level: string, service: string): Params {
  return {
    pinoHttp: {
      level,
      name: service,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Bodies are untrusted and may be large: never logged. Query strings neither.
      serializers: {
        req: (req: { id: unknown; method: string; url: string; headers: Record<string, unknown>; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          url: typeof req.url === 'string' ? req.url.split('?')[0] : req.url,
          headers: req.headers,
          remoteAddress: req.remoteAddress,
        }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      autoLogging: true,
    },
  };
}
