import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/** Nest's start-up narration (modules loaded, every route mapped): debug, not info. */
const BOOTSTRAP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Nest's LoggerService on the service's pino logger (`app.useLogger`). Nest calls it as
 * `(message, ...params, context)`; code of ours calls Nest's Logger pino-style, `(fields, message)`.
 * Both become one pino line with the context as a field. Nest's bootstrap narration is demoted to
 * debug: at the default level a service prints what happened to it, not a line per mapped route.
 */
export class ServiceLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    this.write(typeof context === 'string' && BOOTSTRAP_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: readonly unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    // Nest appends the logger's context last (a string) when the Logger has one.
    const context = rest.length > 0 && typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
    const text = rest.find((param): param is string => typeof param === 'string');
    if (message instanceof Error) {
      this.pino[level]({ err: message, context }, text ?? message.message);
    } else if (typeof message === 'object' && message !== null) {
      const { msg, ...fields } = message as Record<string, unknown>;
      this.pino[level]({ ...fields, context }, typeof msg === 'string' ? msg : (text ?? ''));
    } else {
      // Nest's own error(message, stack, context): the stack is kept as a field.
      this.pino[level](level === 'error' && text ? { context, stack: text } : { context }, String(message));
    }
  }
}
