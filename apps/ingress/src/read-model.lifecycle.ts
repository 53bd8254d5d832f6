import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BatchedActivityRecorder, ConfigurationFeeder, EVENT_STORE, READ_MODELS } from '@wts/application';
import type { EventStore } from '@wts/event-store';
import type { ReadModelStore } from '@wts/read-models';

/**
 * Before serving: the configuration is folded. On shutdown: recorded activity is written, then
 * the read-model database and the event store close. (The read models are projected by the
 * run-dispatcher: the ingress only lists them.)
 */
@Injectable()
export class ReadModelLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly feeder: ConfigurationFeeder,
    private readonly recorder: BatchedActivityRecorder,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.feeder.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.recorder.stop().catch(() => undefined);
    await this.feeder.stop();
    await this.readModels.close();
    await this.store.close();
  }
}
