import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { DISPATCH_ATTEMPTS_BEFORE_PARKING } from '@wts/application';
import { ConfigurationError, loadConfig } from '@wts/config';
import {
  ConsumerGroups,
  ConsumerLagMonitor,
  KafkaDispatchServer,
  consumerGroupLag,
  createKafkaClient,
  describeKafkaConnection,
  kafkaTopicNames,
  parkInStore,
} from '@wts/messaging';
import { metrics, startTracing, tracedEventStore } from '@wts/observability';
import {
  ServiceLogger,
  assertPayloadLimitFits,
  exitGracefullyOnSignals,
  createServiceLogger,
  listenOrExit,
  openEventStore,
  openReadModelStore,
  secureDataDirectory,
  stopWhenSupervisorGone,
} from '@wts/platform';
import { DispatcherModule } from './dispatcher.module';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // DATA_DIR owner-only (0700, files 0600) before anything is written there; a looser one is tightened and said.
  secureDataDirectory(config, (message) => process.stderr.write(`[run-dispatcher] warning: ${message}\n`));
  // OTEL_* variables: off by default; when on, started before anything makes a span.
  const tracing = await startTracing({ requested: config.tracing.enabled, serviceName: 'run-dispatcher' });
  const opened = await openEventStore(config);
  const { checkpoints, description } = opened;
  const store = tracing ? tracedEventStore(opened.store) : opened.store;
  assertPayloadLimitFits(config, store);
  const logger = createServiceLogger(config.log, 'run-dispatcher');
  const { readModels } = await openReadModelStore(config);
  const kafka = config.kafka;
  // An HTTP server of its own for health and metrics only (DISPATCHER_PORT).
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    DispatcherModule.forRoot({ config, store, checkpoints, logger, readModels }),
    adapter,
    {
      bufferLogs: true,
      abortOnError: false,
      // The module holds the composed graph: named by reference, not by deep-hashing every object in it.
      moduleIdGeneratorAlgorithm: 'reference',
    },
  );
  app.useLogger(new ServiceLogger(logger));
  // Kafka: lag against the events topic's retention, a warning long before an unread delivery could expire.
  const retentionLag = kafka
    ? new ConsumerLagMonitor(
        createKafkaClient({ connection: kafka, clientId: 'run-dispatcher-lag', logger }),
        kafkaTopicNames().webhookEvents,
        ConsumerGroups.runDispatcher,
        logger,
      )
    : undefined;
  exitGracefullyOnSignals(app, {
    afterClose: async () => {
      await retentionLag?.stop();
      await tracing?.shutdown();
    },
  });
  // Kafka: deliveries arrive on webhooks.events.v1 through our own transport strategy (a hybrid app).
  if (kafka) {
    // Every park is recorded in the store too: the dead-letter topic alone is not the record.
    // Parked after the attempts of the dispatch failure policy the embedded worker applies too.
    const strategy = new KafkaDispatchServer({
      connection: kafka,
      tuning: { attemptsBeforeParking: DISPATCH_ATTEMPTS_BEFORE_PARKING },
      recordPark: parkInStore(store),
      onDeadLetter: () => metrics.deadLetters.inc(),
      payloadRetentionSeconds: config.limits.payloadRetentionSeconds,
    });
    app.connectMicroservice({ strategy }, { inheritAppConfig: true });
    const topic = kafkaTopicNames().webhookEvents;
    metrics.trackConsumerLag(topic, consumerGroupLag(kafka, ConsumerGroups.runDispatcher, topic));
  }
  // listen() runs the lifecycle hooks; health answers while the consumer is still joining.
  const url = await listenOrExit(app, {
    service: 'run-dispatcher',
    port: config.http.dispatcherPort,
    host: config.http.host,
    portVariable: 'DISPATCHER_PORT',
  });
  process.stdout.write(`run-dispatcher health and metrics on ${url.origin}\n`);
  if (kafka) {
    await app.startAllMicroservices();
    retentionLag?.start();
    process.stdout.write(`run-dispatcher consuming webhook events from Kafka at ${describeKafkaConnection(kafka)} (${description})\n`);
  } else {
    process.stdout.write(`run-dispatcher following accepted deliveries (${description})\n`);
  }
  stopWhenSupervisorGone(config.supervisorPid);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`run-dispatcher failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
