import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { READ_MODELS, ReadModelProjector } from '@wts/application';
import type { ReadModelStore } from '@wts/read-models';

/** The read-model projector runs once the service is up (where this replica holds the lease); on shutdown it stops after its batch in flight. */
@Injectable()
export class ProjectorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly projector: ReadModelProjector,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
  ) {}

  onApplicationBootstrap(): void {
    this.projector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.projector.stop();
    await this.readModels.close();
  }
}
