import { rmSync } from 'node:fs';
import {
  TEST_KAFKA_BROKERS_ENV,
  TEST_KAFKA_DATA_DIR_ENV,
  TEST_KAFKA_TLS_DIR_ENV,
  TEST_KAFKA_UNAVAILABLE_ENV,
  runKafkaScript,
} from './kafka-broker';

/**
 * Stops the broker this run's globalSetup started and deletes its data (a given KAFKA_BROKERS is left
 * alone), and the secured brokers' shared keys.
 */
export default async function kafkaGlobalTeardown(): Promise<void> {
  const tlsDir = process.env[TEST_KAFKA_TLS_DIR_ENV];
  if (tlsDir) {
    delete process.env[TEST_KAFKA_TLS_DIR_ENV];
    rmSync(tlsDir, { recursive: true, force: true });
  }
  const dataDir = process.env[TEST_KAFKA_DATA_DIR_ENV];
  if (!dataDir) return;
  for (const name of [TEST_KAFKA_DATA_DIR_ENV, TEST_KAFKA_BROKERS_ENV, TEST_KAFKA_UNAVAILABLE_ENV]) delete process.env[name];
  await runKafkaScript('clean', { KAFKA_DATA_DIR: dataDir });
  rmSync(dataDir, { recursive: true, force: true });
}
