import type { ProjectorLogger } from '@wts/application';
import { workerThreadScript, type GlobalPosition } from '@wts/event-store';
import { Signal, backoffDelay, sleep } from '@wts/runtime';
import { Worker } from 'node:worker_threads';
import type { ProjectorThreadData, ProjectorThreadReport, ProjectorThreadSettings } from './projector-thread.protocol';

/** A thread that ends while the service runs starts again after 1 s, then 2 s, 4 s … up to 10 s. */
const RESTART_BACKOFF = { initialDelayMs: 1000, maxDelayMs: 10_000 } as const;

/** Where the read models are, and whether this replica writes them: what the lag metric reads. */
export interface ProjectorProgressSource {
  committedPosition(): GlobalPosition | undefined;
  readonly isRunning: boolean;
}

/**
 * The main thread's side of projector.thread: starts it, keeps its last progress report, logs its
 * lines through the service's logger, starts it again after it ends unasked, and stops it (after
 * its batch in flight) on shutdown.
 */
export class ProjectorThread implements ProjectorProgressSource {
  private committed: GlobalPosition | undefined;
  private running = false;
  private worker: Worker | undefined;
  private stopping = false;
  private readonly stopRequested = new Signal();
  private failures = 0;
  private life: Promise<void> | undefined;

  constructor(
    private readonly settings: ProjectorThreadSettings,
    private readonly logger: ProjectorLogger,
  ) {}

  committedPosition(): GlobalPosition | undefined {
    return this.committed;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    this.life ??= this.supervise();
  }

  /** Resolves once the thread has stopped and closed its handles (at once if it never started). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopRequested.notify();
    this.worker?.postMessage({ kind: 'stop' });
    await this.life;
  }

  private async supervise(): Promise<void> {
    while (!this.stopping) {
      const exitCode = await this.runThread();
      this.running = false;
      if (this.stopping) return;
      this.failures += 1;
      const delayMs = backoffDelay(RESTART_BACKOFF, this.failures);
      this.logger.error({ exitCode, restartInMs: delayMs }, 'read-model projector thread ended; starting it again');
      await sleep(delayMs, this.stopRequested);
    }
  }

  /** One thread from its start to its exit: resolves with its exit code. */
  private runThread(): Promise<number> {
    const { script, entry } = workerThreadScript(__dirname, 'projector.thread');
    const data: ProjectorThreadData = { settings: this.settings, entry };
    const worker = new Worker(script, { workerData: data });
    this.worker = worker;
    worker.on('message', (report: ProjectorThreadReport) => this.receive(worker, report));
    worker.on('error', (error) => this.logger.error({ err: error }, 'read-model projector thread failed'));
    return new Promise((resolve) =>
      worker.once('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        resolve(code);
      }),
    );
  }

  private receive(worker: Worker, report: ProjectorThreadReport): void {
    switch (report.kind) {
      case 'log':
        this.logger[report.level](report.fields, report.message);
        return;
      case 'progress':
        this.committed = report.committed;
        this.running = report.running;
        if (report.running) this.failures = 0;
        return;
      case 'stopped':
        // Everything is closed: nothing of the thread is left to wait for.
        void worker.terminate();
    }
  }
}
