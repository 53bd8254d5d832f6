import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { EVENT_STORE, ReadModelFeeder } from '@wts/application';
import type { EventStore } from '@wts/event-store';

/** Catch up before serving; stop following and close the store on shutdown. */
@Injectable()
export class ReadModelLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly feeder: ReadModelFeeder,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.feeder.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.feeder.stop();
    await this.store.close();
  }
}
