import type { LoggerService } from '@nestjs/common';

/** Nest's start-up narration (modules loaded, every route mapped): debug, not info. */
const BOOTSTRAP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'NestMicroservice']);

/**
 * The app's logger (nestjs-pino's, through `app.useLogger`), with Nest's bootstrap narration
 * demoted to debug: at the default level a service prints what happened to it, not a line per
 * mapped route. Everything else passes through unchanged.
 */
export class ServiceLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && BOOTSTRAP_CONTEXTS.has(context)) this.inner.debug?.(message, ...optionalParams);
    else this.inner.log(message, ...optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.fatal?.(message, ...optionalParams);
  }
}
