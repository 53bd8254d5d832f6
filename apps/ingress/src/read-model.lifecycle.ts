import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BatchedActivityRecorder, ConfigurationFeeder, EVENT_STORE, READ_MODELS, ReadModelProjector, type ReadModelStore } from '@wts/application';
import type { EventStore } from '@wts/event-store';

/**
 * Before serving: the configuration is folded. Once up: the read-model projector runs (where this
 * replica holds the lease). On shutdown: the projector stops after its batch in flight, recorded
 * activity is written, then the read-model database and the event store close.
 */
@Injectable()
export class ReadModelLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly feeder: ConfigurationFeeder,
    private readonly projector: ReadModelProjector,
    private readonly recorder: BatchedActivityRecorder,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.feeder.start();
  }

  onApplicationBootstrap(): void {
    this.projector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.projector.stop();
    await this.recorder.stop().catch(() => undefined);
    await this.feeder.stop();
    await this.readModels.close();
    await this.store.close();
  }
}
