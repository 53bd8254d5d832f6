import { TEST_KAFKA_BROKERS_ENV, runKafkaScript } from './kafka-broker';
import { STARTED_MARKER } from './kafka-global-setup';

/** Stops the test broker only if this run's globalSetup started it. */
export default async function kafkaGlobalTeardown(): Promise<void> {
  if (process.env[STARTED_MARKER] !== '1') return;
  delete process.env[STARTED_MARKER];
  delete process.env[TEST_KAFKA_BROKERS_ENV];
  await runKafkaScript('stop');
}
