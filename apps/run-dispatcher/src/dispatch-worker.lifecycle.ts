import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { StoreDispatchWorker } from '@wts/application';

/** Starts following accepted deliveries once up; on shutdown stops and checkpoints (the store closes after: EventStoreModule). */
export class DispatchWorkerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly worker: StoreDispatchWorker) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
  }
}
