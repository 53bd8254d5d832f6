import type { LogFormat } from '@wts/config';
import type { IncomingMessage } from 'node:http';
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

/** Probes (the launcher, orchestrators) poll these: one log line per poll would drown the rest. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz', '/health/live', '/health/ready']);

/** `auto` is human-readable on a terminal, JSON lines anywhere else. */
export function resolveLogFormat(format: LogFormat, stdoutIsTty = process.stdout.isTTY === true): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stdoutIsTty ? 'pretty' : 'json';
}

export function loggerParams(log: { readonly level: string; readonly format: LogFormat }, service: string): Params {
  const pretty = resolveLogFormat(log.format) === 'pretty';
  return {
    pinoHttp: {
      level: log.level,
      name: service,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Bodies are untrusted and may be large: never logged. Query strings neither.
      serializers: {
        req: (req: { id: unknown; method: string; url: string; headers: Record<string, unknown>; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          url: pathOf(req.url),
          headers: req.headers,
          remoteAddress: req.remoteAddress,
        }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      customSuccessMessage: (req: IncomingMessage & { originalUrl?: string }, res, responseTime) =>
        `${req.method} ${pathOf(req.originalUrl ?? req.url)} ${res.statusCode} ${Math.round(responseTime)} ms`,
      // Behind Nest's middleware layer req.url is relative to the mount point: originalUrl is the path.
      autoLogging: { ignore: (req: IncomingMessage & { originalUrl?: string }) => UNLOGGED_PATHS.has(pathOf(req.originalUrl ?? req.url)) },
      ...(pretty
        ? {
            transport: {
              target: 'pino-pretty',
              options: { colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,name,req,res,responseTime,context', singleLine: true },
            },
          }
        : {}),
    },
  };
}

function pathOf(url: string | undefined): string {
  return typeof url === 'string' ? url.split('?')[0] : '';
}
