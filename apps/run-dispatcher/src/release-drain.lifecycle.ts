import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ReleaseDrainWorker } from '@wts/application';

/** Follows releases once up (both shapes: it reads the store, the truth); on shutdown stops where it is, checkpointed. */
export class ReleaseDrainLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly worker: ReleaseDrainWorker) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
  }
}
