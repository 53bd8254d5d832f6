import 'reflect-metadata';
import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { EventStore } from '@wts/event-store';
import { EventStoreModule } from './event-store.module';
import { provideValue } from './value.provider';

class SlowToStop implements OnApplicationShutdown {
  constructor(private readonly log: string[]) {}

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 20));
    this.log.push('user of the store stopped');
  }
}

@Module({})
class ServiceModule {
  static forRoot(store: EventStore, log: string[]): DynamicModule {
    return {
      module: ServiceModule,
      imports: [EventStoreModule.forRoot(store)],
      providers: [provideValue(SlowToStop, new SlowToStop(log))],
    };
  }
}

describe('EventStoreModule: the one place a service closes its event store', () => {
  it('given a service module that imports it, when the app closes, then the store closes once, after the module stopped', async () => {
    const log: string[] = [];
    const store = { close: async () => void log.push('store closed') } as EventStore;
    const app = await NestFactory.createApplicationContext(ServiceModule.forRoot(store, log), {
      logger: false,
      moduleIdGeneratorAlgorithm: 'reference',
    });

    await app.close();

    expect(log).toEqual(['user of the store stopped', 'store closed']);
  });
});
