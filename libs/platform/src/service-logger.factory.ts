import type { LogFormat } from '@wts/config';
import pino, { type Logger } from 'pino';

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

/** `auto` is human-readable on a terminal, JSON lines anywhere else. */
export function resolveLogFormat(format: LogFormat, stdoutIsTty = process.stdout.isTTY === true): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stdoutIsTty ? 'pretty' : 'json';
}

/**
 * The one pino logger of a service: Fastify logs each request through it (its own integration:
 * no Express-style middleware on the request path) and Nest's logger writes to it too.
 */
export function createServiceLogger(log: { readonly level: string; readonly format: LogFormat }, service: string): Logger {
  const options = { level: log.level, name: service, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (resolveLogFormat(log.format) === 'pretty') {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: {
          colorize: true,
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname,name,reqId,context,method,path,status,ms,remoteAddress',
          singleLine: true,
        },
      },
    });
  }
  // Lines gathered up to 4 KiB per write instead of one write per line (a request is a line),
  // flushed at least every 200 ms and when the process exits.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  return pino(options, destination);
}

const FLUSH_EVERY_MS = 200;
