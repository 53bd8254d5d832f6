import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ReadModelStore } from '@wts/read-models';
import type { StoreFollowersThread } from './dispatcher-threads.factory';

/**
 * The store followers' thread (the read-model projector, the run relay) starts once the service is
 * up: it never waits for Kafka, and the projector writes where this replica holds the lease. On
 * shutdown the relay's batch in flight is acknowledged and checkpointed and the projector's
 * committed; then this service's own read-model handle (the payload sweep's and the erasures') closes.
 */
export class StoreFollowersLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly thread: Pick<StoreFollowersThread, 'start' | 'stop'>,
    private readonly readModels: ReadModelStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.thread.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.thread.stop();
    await this.readModels.close();
  }
}
