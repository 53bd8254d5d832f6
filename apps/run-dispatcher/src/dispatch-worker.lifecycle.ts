import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { EVENT_STORE, StoreDispatchWorker } from '@wts/application';
import type { EventStore } from '@wts/event-store';

/** Starts following accepted deliveries once up; on shutdown stops, checkpoints, then closes the store. */
@Injectable()
export class DispatchWorkerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly worker: StoreDispatchWorker,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await this.store.close();
  }
}
