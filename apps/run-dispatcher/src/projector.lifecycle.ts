import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ReadModelStore } from '@wts/read-models';
import type { ServiceThread } from '@wts/platform';

/**
 * The read-model projector's thread starts once the service is up (it writes where this replica
 * holds the lease); on shutdown it stops after its batch in flight, then this service's own
 * read-model handle (the payload sweep's and the erasures') closes.
 */
export class ProjectorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly projector: Pick<ServiceThread<unknown, unknown>, 'start' | 'stop'>,
    private readonly readModels: ReadModelStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.projector.stop();
    await this.readModels.close();
  }
}
