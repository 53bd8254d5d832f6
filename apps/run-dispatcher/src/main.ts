import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { ConfigurationError, loadConfig } from '@wts/config';
import { ConsumerGroups, ConsumerLagMonitor, KafkaDispatchServer, createKafkaClient, kafkaTopicNames, storeParkRecorder } from '@wts/messaging';
import { ServiceLogger, assertPayloadLimitFits, createServiceLogger, openEventStore, openReadModelStore, stopWhenSupervisorGone } from '@wts/platform';
import { DispatcherModule } from './dispatcher.module';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const { store, checkpoints, description } = await openEventStore(config);
  assertPayloadLimitFits(config, store);
  const logger = createServiceLogger(config.log, 'run-dispatcher');
  const { readModels } = await openReadModelStore(config);
  const brokers = config.kafka.brokers;
  if (brokers) {
    // Kafka: deliveries arrive on webhooks.events.v1 through our own transport strategy.
    const app = await NestFactory.createMicroservice<MicroserviceOptions>(DispatcherModule.forRoot({ config, store, checkpoints, logger, readModels }), {
      // Every park is recorded in the store too: the dead-letter topic alone is not the record.
      strategy: new KafkaDispatchServer({ brokers, recordPark: storeParkRecorder(store) }),
      bufferLogs: true,
      abortOnError: false,
    });
    app.useLogger(new ServiceLogger(logger));
    app.enableShutdownHooks();
    // listen() registers the handlers, runs the lifecycle hooks, then starts the strategy.
    await app.listen();
    // Lag against the events topic's retention: a warning long before an unread delivery could expire.
    const lag = new ConsumerLagMonitor(createKafkaClient({ brokers, clientId: 'run-dispatcher-lag', logger }), kafkaTopicNames().webhookEvents, ConsumerGroups.runDispatcher, logger);
    lag.start();
    process.stdout.write(`run-dispatcher consuming webhook events from Kafka at ${brokers.join(',')} (${description})\n`);
    stopWhenSupervisorGone(config.supervisorPid);
    return;
  }
  const app = await NestFactory.createApplicationContext(DispatcherModule.forRoot({ config, store, checkpoints, logger, readModels }), {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(new ServiceLogger(logger));
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write(`run-dispatcher following accepted deliveries (${description})\n`);
  stopWhenSupervisorGone(config.supervisorPid);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`run-dispatcher failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
