import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  TEST_KAFKA_BROKERS_ENV,
  TEST_KAFKA_DATA_DIR_ENV,
  TEST_KAFKA_TLS_DIR_ENV,
  TEST_KAFKA_UNAVAILABLE_ENV,
  startKafkaBroker,
} from './kafka-broker';

/**
 * Jest globalSetup of the int and e2e projects. With KAFKA_BROKERS set, the tests use that broker;
 * otherwise this starts a test broker of this run's own (kafka.sh: a fresh data dir, free ports,
 * about 5 s when the jars are cached), so two checkouts test side by side. The broker belongs to
 * the jest process: the teardown stops it, and if jest dies first (crash, Ctrl-C, kill -9) the
 * script's watchdog stops it and deletes its data within seconds.
 *
 * The secured brokers tests start for themselves share one CA and key pair (TEST_KAFKA_TLS_DIR_ENV).
 *
 * A broker that cannot start fails only the Kafka suites (kafkaBrokers() throws the reason), never
 * the whole run.
 */
export default async function kafkaGlobalSetup(): Promise<void> {
  // Named here, made by the first secured broker that needs it (kafka.sh, under a lock): a run that
  // starts none spends nothing on keys.
  process.env[TEST_KAFKA_TLS_DIR_ENV] ??= join(tmpdir(), `wts-test-kafka-tls-${randomBytes(6).toString('hex')}`);
  if (process.env[TEST_KAFKA_BROKERS_ENV] || process.env[TEST_KAFKA_UNAVAILABLE_ENV]) return;
  if (process.env.KAFKA_BROKERS) {
    process.env[TEST_KAFKA_BROKERS_ENV] = process.env.KAFKA_BROKERS;
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'wts-test-kafka-'));
  process.env[TEST_KAFKA_DATA_DIR_ENV] = dataDir;
  try {
    const brokers = await startKafkaBroker({ KAFKA_DATA_DIR: dataDir, KAFKA_OWNER_CLEANUP: '1' });
    process.env[TEST_KAFKA_BROKERS_ENV] = brokers;
    process.stderr.write(`\n[kafka] test broker for this run at ${brokers}\n`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.env[TEST_KAFKA_UNAVAILABLE_ENV] = reason;
    process.stderr.write(`\n[kafka] the test broker could not start; the Kafka suites will fail, the others run:\n${reason}\n`);
  }
}
