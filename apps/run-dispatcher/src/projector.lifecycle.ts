import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ReadModelProjector } from '@wts/application';
import type { ReadModelStore } from '@wts/read-models';

/** The read-model projector runs once the service is up (where this replica holds the lease); on shutdown it stops after its batch in flight. */
export class ProjectorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly projector: ReadModelProjector,
    private readonly readModels: ReadModelStore,
  ) {}

  onApplicationBootstrap(): void {
    this.projector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.projector.stop();
    await this.readModels.close();
  }
}
