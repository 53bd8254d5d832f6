import { workerThreadScript } from '@wts/event-store';
import { Signal, backoffDelay, sleep } from '@wts/runtime';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { ServiceThreadData, ServiceThreadReport, ServiceThreadStopCommand, ThreadLogger } from './service-thread.protocol';

/** A thread that ends while the service runs starts again after 1 s, then 2 s, 4 s … up to 10 s. */
const RESTART_BACKOFF = { initialDelayMs: 1000, maxDelayMs: 10_000 } as const;

export interface ServiceThreadOptions<S> {
  /** For the log lines: what runs there ("read-model projector"). */
  readonly name: string;
  /** Where the entry is: `<directory>/<baseName>.ts`, compiled beside it (workerThreadScript). */
  readonly directory: string;
  readonly baseName: string;
  /** What the thread opens (plain data: it is copied to the thread). */
  readonly settings: S;
  readonly logger: ThreadLogger;
  /** The thread refused to run (ThreadServiceContext.fatal): it is not started again, and this says what the service does. */
  readonly onFatal: (error: Error) => void;
  /** Its V8 heap's sizes where V8's defaults do not suit its work (worker_threads' resourceLimits). */
  readonly resourceLimits?: ResourceLimits;
}

/**
 * The main thread's side of a service thread (serveThread): starts it, keeps its last progress
 * report, logs its lines through the service's logger, starts it again after it ends unasked, and
 * stops it (after its work in flight) on shutdown.
 */
export class ServiceThread<S, P> {
  private last: P | undefined;
  private worker: Worker | undefined;
  private stopping = false;
  private readonly stopRequested = new Signal();
  private failures = 0;
  private life: Promise<void> | undefined;

  constructor(private readonly options: ServiceThreadOptions<S>) {}

  /** The thread's last progress report; undefined while no thread runs. */
  progress(): P | undefined {
    return this.last;
  }

  /** The heap sizes of the running thread (V8's, with the options' resourceLimits); undefined while none runs. */
  heapLimits(): ResourceLimits | undefined {
    return this.worker?.resourceLimits;
  }

  /** Starts the thread in the background (resolves at once: a StartStopJob). */
  async start(): Promise<void> {
    this.life ??= this.supervise();
  }

  /** Resolves once the thread has stopped and closed its handles (at once if it never started). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopRequested.notify();
    this.worker?.postMessage({ kind: 'stop' } satisfies ServiceThreadStopCommand);
    await this.life;
  }

  private async supervise(): Promise<void> {
    while (!this.stopping) {
      const exitCode = await this.runThread();
      this.last = undefined;
      if (this.stopping) return;
      this.failures += 1;
      const delayMs = backoffDelay(RESTART_BACKOFF, this.failures);
      this.options.logger.error({ exitCode, restartInMs: delayMs }, `${this.options.name} thread ended; starting it again`);
      await sleep(delayMs, this.stopRequested);
    }
  }

  /** One thread from its start to its exit: resolves with its exit code. */
  private runThread(): Promise<number> {
    const { script, entry } = workerThreadScript(this.options.directory, this.options.baseName);
    const data: ServiceThreadData<S> = { settings: this.options.settings, entry };
    const worker = new Worker(script, { workerData: data, resourceLimits: this.options.resourceLimits });
    this.worker = worker;
    worker.on('message', (report: ServiceThreadReport<P>) => this.receive(worker, report));
    worker.on('error', (error) => this.options.logger.error({ err: error }, `${this.options.name} thread failed`));
    return new Promise((resolve) =>
      worker.once('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        resolve(code);
      }),
    );
  }

  private receive(worker: Worker, report: ServiceThreadReport<P>): void {
    switch (report.kind) {
      case 'log':
        this.options.logger[report.level](report.fields, report.message);
        return;
      case 'progress':
        this.last = report.progress;
        this.failures = 0;
        return;
      case 'fatal':
        this.stopping = true;
        this.options.onFatal(new Error(report.message));
        return;
      case 'stopped':
        // Everything is closed: nothing of the thread is left to wait for.
        void worker.terminate();
    }
  }
}
