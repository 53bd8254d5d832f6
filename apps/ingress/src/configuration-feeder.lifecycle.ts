import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ConfigurationFeeder } from '@wts/application';

/** Before serving: the configuration is folded, and followed from then on; on shutdown the subscription stops. */
export class ConfigurationFeederLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly feeder: ConfigurationFeeder) {}

  async onModuleInit(): Promise<void> {
    await this.feeder.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.feeder.stop();
  }
}
