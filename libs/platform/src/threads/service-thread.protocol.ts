import { describeError } from '@wts/runtime';
import { inspect } from 'node:util';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';

/** Log lines cross the thread as data; the main thread writes them through the service's logger. */
export interface ThreadLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A thread's workerData: its settings, and its entry (`.ts` under the tests' loader). */
export interface ServiceThreadData<S> {
  readonly settings: S;
  readonly entry: string;
}

/** The main thread's one request: stop after the work in flight, close, then say so. */
export interface ServiceThreadStopCommand {
  readonly kind: 'stop';
}

/** What a thread tells the main thread: its log lines, its progress, a refusal to run, and that it stopped. */
export type ServiceThreadReport<P> =
  | {
      readonly kind: 'log';
      readonly level: keyof ThreadLogger;
      readonly fields: Readonly<Record<string, unknown>>;
      readonly message: string;
    }
  | { readonly kind: 'progress'; readonly progress: P }
  | { readonly kind: 'fatal'; readonly message: string }
  | { readonly kind: 'stopped' };

/** What a thread's entry runs: read for a progress report every PROGRESS_EVERY_MS, and stopped gracefully. */
export interface ThreadService<P> {
  progress(): P;
  stop(): Promise<void>;
}

export interface ThreadServiceContext {
  readonly logger: ThreadLogger;
  /** The service must not run (a refusal, never retried): the main thread is told why, the thread ends. */
  fatal(error: unknown): void;
}

/** How often a thread says where it is (the metrics read the last report). */
const PROGRESS_EVERY_MS = 250;

/**
 * Log fields cross the thread as data (a structured clone refuses functions and more): errors as
 * their name and message, bigints and functions as text; fields that do not make JSON at all (a
 * cycle) as one inspected text. A log line never ends the thread.
 */
export function threadLogFields(fields: object): Record<string, unknown> {
  const replacer = (_key: string, value: unknown): unknown => {
    if (value instanceof Error) return describeError(value);
    if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') return String(value);
    return value;
  };
  try {
    return JSON.parse(JSON.stringify(fields, replacer)) as Record<string, unknown>;
  } catch {
    return { fields: inspect(fields, { depth: 4, breakLength: Infinity }) };
  }
}

/**
 * The thread's end of the protocol, called once by a `*.thread.ts` entry (`name` as in its log
 * lines): starts its service with the settings the main thread passed, reports its progress, stops
 * it on request and says so. A start that fails ends the thread (exit code 1), and the main
 * thread's ServiceThread starts it again.
 */
export function serveThread<S, P>(name: string, start: (settings: S, context: ThreadServiceContext) => Promise<ThreadService<P>>): void {
  if (!parentPort) throw new Error('a service thread runs as a worker thread');
  const port: MessagePort = parentPort;
  const report = (message: ServiceThreadReport<P>): void => port.postMessage(message);
  const log =
    (level: keyof ThreadLogger) =>
    (fields: object, message: string): void =>
      report({ kind: 'log', level, fields: threadLogFields(fields), message });
  const logger: ThreadLogger = { info: log('info'), warn: log('warn'), error: log('error') };
  const fatal = (error: unknown): void => {
    report({ kind: 'fatal', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  };
  const { settings } = workerData as ServiceThreadData<S>;
  start(settings, { logger, fatal }).then(
    (service) => {
      const progress = (): void => report({ kind: 'progress', progress: service.progress() });
      const ticker = setInterval(progress, PROGRESS_EVERY_MS);
      port.on('message', (command: ServiceThreadStopCommand) => {
        if (command.kind !== 'stop') return;
        clearInterval(ticker);
        void service.stop().then(() => {
          progress();
          report({ kind: 'stopped' });
          port.close();
        });
      });
      progress();
    },
    (error: unknown) => {
      logger.error({ err: error }, `${name} thread could not start`);
      process.exit(1);
    },
  );
}
