/** What a service closes on SIGTERM: the Nest app (HTTP server, consumer, lifecycle hooks). */
export interface Closable {
  close(): Promise<void>;
}

export interface GracefulShutdownOptions {
  /** Runs after the app closed: e.g. flushing the trace exporter. */
  readonly afterClose?: () => Promise<void>;
  /** A shutdown that takes longer than this exits with 1 (the orchestrator would SIGKILL anyway). */
  readonly deadlineMs?: number;
  readonly log?: (message: string) => void;
}

/**
 * SIGTERM and SIGINT: close the app in Nest's order — stop accepting and finish the requests in
 * flight (appends included), stop the consumer after its handlers and commit its offsets, stop
 * the relay and the projector after their batch, close the clients — then flush what remains
 * (the exporter), and exit 0. Exit 1 if any of it fails or outlasts the deadline; a second signal
 * changes nothing (the first shutdown goes on). Instead of Nest's enableShutdownHooks, which
 * re-raises the signal once done, so the exit status could not tell a clean stop from a crash.
 */
export function exitGracefullyOnSignals(app: Closable, options: GracefulShutdownOptions = {}): void {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`${signal}: shutting down gracefully`);
    const deadline = setTimeout(() => {
      log(`shutdown did not finish within ${options.deadlineMs ?? 25_000} ms: exiting`);
      process.exit(1);
    }, options.deadlineMs ?? 25_000);
    deadline.unref();
    void (async () => {
      try {
        await app.close();
        await options.afterClose?.();
        log('shut down');
        process.exit(0);
      } catch (error) {
        log(`shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        process.exit(1);
      }
    })();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
