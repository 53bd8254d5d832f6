import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaBrokers, runKafkaScript, startKafkaBroker } from '../support/kafka-broker';
import { eventually } from '@wts/testing';

/**
 * A test broker belongs to the process that started it: when that process dies without cleaning up
 * (kill -9 of jest, a crash), the script's watchdog stops the broker and deletes its data. Free
 * ports by default, so this second broker runs beside the run's own.
 */
describe('kafka.sh: a broker follows its owner', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'wts-kafka-owner-'));
  });

  afterEach(async () => {
    await runKafkaScript('clean', { KAFKA_DATA_DIR: dataDir });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the broker and removes its data within seconds of the owner being killed -9', async () => {
    const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
    const ownerExited = new Promise((resolve) => owner.once('exit', resolve));
    const brokers = await startKafkaBroker({ KAFKA_DATA_DIR: dataDir, KAFKA_OWNER_PID: String(owner.pid), KAFKA_OWNER_CLEANUP: '1' });
    expect(brokers).not.toBe(kafkaBrokers().join(','));
    const brokerPid = Number(readFileSync(join(dataDir, 'kafka.pid'), 'utf8'));
    expect(processAlive(brokerPid)).toBe(true);

    owner.kill('SIGKILL');
    await ownerExited;
    await eventually(
      async () => !processAlive(brokerPid) && !existsSync(dataDir),
      45_000,
      'the watchdog to stop the broker and remove its data',
    );
  }, 120_000);

  it('keeps its ports across a restart when none were given', async () => {
    const first = await startKafkaBroker({ KAFKA_DATA_DIR: dataDir });
    const restarted = await runKafkaScript('restart', { KAFKA_DATA_DIR: dataDir });
    expect(restarted.code).toBe(0);
    expect(restarted.stdout.trim()).toBe(`KAFKA_BROKERS=${first}`);
  }, 120_000);
});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2];
    return state !== 'Z';
  } catch {
    return false;
  }
}
