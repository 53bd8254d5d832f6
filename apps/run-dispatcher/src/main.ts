import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigurationError, loadConfig } from '@wts/config';
import { openEventStore } from '@wts/platform';
import { Logger } from 'nestjs-pino';
import { DispatcherModule } from './dispatcher.module';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const { store, checkpoints, description } = await openEventStore(config);
  const app = await NestFactory.createApplicationContext(DispatcherModule.forRoot({ config, store, checkpoints }), {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write(`run-dispatcher following accepted deliveries (${description})\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`run-dispatcher failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
