import { TEST_KAFKA_BROKERS_ENV, runKafkaScript, startKafkaBroker } from './kafka-broker';

/** Marks, for the teardown, that this run started the broker (so it stops only its own). */
export const STARTED_MARKER = 'WTS_TEST_KAFKA_STARTED_BY_SETUP';

/**
 * Jest globalSetup of the int and e2e projects. With KAFKA_BROKERS set, the tests use that broker;
 * otherwise this starts the real test broker (kafka.sh start: idempotent, about 3 s when the jars
 * are cached). Either way the address is exported to the test files as WTS_TEST_KAFKA_BROKERS. The
 * broker stays up between test files.
 */
export default async function kafkaGlobalSetup(): Promise<void> {
  if (process.env[TEST_KAFKA_BROKERS_ENV]) return;
  if (process.env.KAFKA_BROKERS) {
    process.env[TEST_KAFKA_BROKERS_ENV] = process.env.KAFKA_BROKERS;
    return;
  }
  const wasRunning = (await runKafkaScript('status')).code === 0;
  const brokers = await startKafkaBroker();
  process.env[TEST_KAFKA_BROKERS_ENV] = brokers;
  if (!wasRunning) process.env[STARTED_MARKER] = '1';
  process.stderr.write(`\n[kafka] test broker at ${brokers}${wasRunning ? ' (already running)' : ' (started for this run)'}\n`);
}
