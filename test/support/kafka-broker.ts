/**
 * The real test broker: scripts/kafka/kafka.sh (Kafka 3.9 KRaft from Maven Central jars).
 * Jest's globalSetup starts it when KAFKA_BROKERS is unset and exports the address as
 * TEST_KAFKA_BROKERS_ENV (not KAFKA_BROKERS: every service process a test spawns inherits the
 * environment, and KAFKA_BROKERS would switch them all from the embedded default to Kafka).
 * Tests read it with kafkaBrokers(). A test that restarts a broker runs its own.
 */
export const TEST_KAFKA_BROKERS_ENV = 'WTS_TEST_KAFKA_BROKERS';
/** Set instead of the address when the broker could not start: why. */
export const TEST_KAFKA_UNAVAILABLE_ENV = 'WTS_TEST_KAFKA_UNAVAILABLE';
/** The data dir of the broker this run started (its teardown removes it). */
export const TEST_KAFKA_DATA_DIR_ENV = 'WTS_TEST_KAFKA_DATA_DIR';
/** Where this run's secured brokers share one CA and key pair (kafka.sh's KAFKA_TLS_DIR; the teardown removes it). */
export const TEST_KAFKA_TLS_DIR_ENV = 'WTS_TEST_KAFKA_TLS_DIR';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export const KAFKA_SCRIPT = join(__dirname, '..', '..', 'scripts', 'kafka', 'kafka.sh');

/** kafka.sh's KAFKA_JVM_OPTS for test brokers (unless the environment sets its own). */
export const TEST_BROKER_JVM_OPTS = '-XX:TieredStopAtLevel=1';

export type KafkaScriptCommand = 'start' | 'stop' | 'restart' | 'kill' | 'status' | 'clean';

export interface KafkaScriptResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs kafka.sh asynchronously (tests keep sending traffic meanwhile). A broker it starts belongs
 * to this process (KAFKA_OWNER_PID): the script's watchdog stops it if this process dies first.
 */
export function runKafkaScript(command: KafkaScriptCommand, env: NodeJS.ProcessEnv = {}, timeoutMs = 180_000): Promise<KafkaScriptResult> {
  // A test broker lives for a suite: the client compiler alone starts it with about 2 s less CPU
  // (6.6 -> 4.6 s to ready and 10 s idle), and the suites' traffic is small. A KAFKA_JVM_OPTS of the
  // environment replaces it.
  const fullEnv = { KAFKA_JVM_OPTS: TEST_BROKER_JVM_OPTS, ...process.env, KAFKA_OWNER_PID: String(process.pid), ...env };
  return new Promise((resolve) => {
    execFile(
      'bash',
      [KAFKA_SCRIPT, command],
      { env: fullEnv, timeout: timeoutMs, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Starts (or finds) the broker; returns its address, or throws with the script's output. */
export async function startKafkaBroker(env: NodeJS.ProcessEnv = {}): Promise<string> {
  const result = await runKafkaScript('start', env);
  const match = /^KAFKA_BROKERS=(\S+)$/m.exec(result.stdout);
  if (result.code !== 0 || !match) throw new Error(`kafka.sh start failed (exit ${result.code}):\n${result.stderr.slice(-4000)}`);
  return match[1];
}

export async function kafkaScriptOrThrow(command: KafkaScriptCommand, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const result = await runKafkaScript(command, env);
  if (result.code !== 0) throw new Error(`kafka.sh ${command} failed (exit ${result.code}):\n${result.stderr.slice(-4000)}`);
}

/** The broker address exported by the global setup (or given by the caller's KAFKA_BROKERS). */
export function kafkaBrokers(): string[] {
  const unavailable = process.env[TEST_KAFKA_UNAVAILABLE_ENV];
  if (unavailable) throw new Error(`the Kafka test broker is not available, so this suite cannot run:\n${unavailable}`);
  const brokers = process.env[TEST_KAFKA_BROKERS_ENV] ?? process.env.KAFKA_BROKERS;
  if (!brokers)
    throw new Error(`${TEST_KAFKA_BROKERS_ENV} is not set: run the tests through jest (its globalSetup starts the test broker)`);
  return brokers.split(',');
}

/** A prefix for topic and group names: tests on one broker never see each other's messages. */
export function uniqueName(label: string): string {
  return `test-${label}-${randomBytes(5).toString('hex')}`;
}
