import type { OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';

/** A job that runs from its start to its stop: a worker following the store, a subscription. */
export interface StartStopJob {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * When a job starts: `before serving` (Nest's module init: the service answers nothing until the
 * start resolves) or `once up` (application bootstrap).
 */
export type JobStart = 'before serving' | 'once up';

/** One job's hook: started at `startAt`, stopped on shutdown. */
export class JobLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly job: StartStopJob,
    private readonly startAt: JobStart,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.startAt === 'before serving') await this.job.start();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.startAt === 'once up') await this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }
}
