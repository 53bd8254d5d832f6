/* global URL */
/**
 * The single-node Kafka test broker for the bench, soak and chaos scripts (re-exported by
 * bench-kit.mjs, where they import it from).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KAFKA_SCRIPT = fileURLToPath(new URL('../kafka/kafka.sh', import.meta.url));

/**
 * The single-node test broker (scripts/kafka/kafka.sh) on a temporary data dir, stopped and
 * deleted with `clean()` (and by its watchdog if this process dies). `kill()` is kill -9,
 * `start()` starts it again on the same ports and data.
 */
export function startKafkaBroker() {
  const dataDir = mkdtempSync(join(tmpdir(), 'wts-kafka-'));
  const env = { ...process.env, KAFKA_DATA_DIR: dataDir, KAFKA_OWNER_PID: String(process.pid), KAFKA_OWNER_CLEANUP: '1' };
  const run = (command) => spawnSync('bash', [KAFKA_SCRIPT, command], { env, encoding: 'utf8' });
  const start = () => {
    const result = run('start');
    const match = /^KAFKA_BROKERS=(\S+)$/m.exec(result.stdout);
    if (result.status !== 0 || !match) throw new Error(`the test broker did not start:\n${result.stderr}`);
    return match[1];
  };
  /** The same start without blocking the event loop (load keeps flowing while the JVM starts). */
  const startAsync = () =>
    new Promise((resolveStart, rejectStart) => {
      execFile('bash', [KAFKA_SCRIPT, 'start'], { env }, (error, stdout, stderr) => {
        if (error) rejectStart(new Error(`the test broker did not start again:\n${stderr}`));
        else resolveStart(/^KAFKA_BROKERS=(\S+)$/m.exec(stdout)?.[1]);
      });
    });
  const brokers = start();
  return { brokers, dataDir, start, startAsync, kill: () => run('kill'), clean: () => run('clean') };
}
