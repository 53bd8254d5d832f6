import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/** A piece of background upkeep: what to do each time, and what to say about it. */
export interface PeriodicTask<T> {
  /** The logger context, e.g. "HoldExpiry". */
  readonly name: string;
  readonly everyMs: number;
  run(): Promise<T>;
  /** A line worth logging about a result (nothing when there is nothing to say). */
  describe(result: T): { readonly fields: object; readonly message: string } | undefined;
  /** What a failed run means for the operator (the next run tries again). */
  readonly failure: string;
}

/**
 * Runs a task every `everyMs` from start-up to shutdown, one run at a time (a run still under way
 * when the next is due is not doubled), each failure logged and the next run trying again; shutdown
 * waits for the run in flight.
 */
export class PeriodicTaskLifecycle<T> implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly task: PeriodicTask<T>) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), this.task.everyMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    const logger = new Logger(this.task.name);
    this.running = this.task
      .run()
      .then(
        (result) => {
          const said = this.task.describe(result);
          if (said) logger.log(said.fields, said.message);
        },
        (error: unknown) => logger.error({ err: error }, this.task.failure),
      )
      .finally(() => {
        this.running = undefined;
      });
  }
}
