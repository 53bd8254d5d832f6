/**
 * The built CLI as a real OS process (`node dist/apps/cli/src/main.js`, what `npm run cli` runs):
 * exit codes reach the shell, the process ends by itself after a replay (store and Kafka client
 * closed), and SIGINT stops a `tail` cleanly. Needs `npm run build` (npm test builds first);
 * the e2e tier runs after `npm run build` (npm test builds first); a missing build fails loudly.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kafkaBrokers, uniqueName } from '../../../test/support/kafka-broker';
import { deleteTopics, testKafka } from '../../../test/support/kafka-test-kit';
import { useSeededStoreWithRuns } from './cli-fixtures';

const CLI_MAIN = join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'src', 'main.js');
if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` first (npm test does)`);

interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

function run(
  args: readonly string[],
  env: Record<string, string>,
  options: { onStdout?: (text: string, kill: (signal: NodeJS.Signals) => void) => void } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      options.onStdout?.(stdout, (signal) => child.kill(signal));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe('the built CLI as a process', () => {
  jest.setTimeout(90_000);
  const seeded = useSeededStoreWithRuns();

  it('replay --to dispatcher: exit 0, all already created, and the process ends by itself', async () => {
    const result = await run(['replay', '--category', 'delivery', '--to', 'dispatcher', '--json'], seeded.env);
    process.stderr.write(`[cli] process replay --to dispatcher: ${result.ms} ms\n`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      replayed: seeded.deliveryIds.length,
      created: 0,
      already_created: seeded.deliveryIds.length,
    });
  });

  it('a validation error exits 2; a missing store exits 1', async () => {
    const invalid = await run(['replay', '--to', 'dispatcher', '--from-position', '5', '--to-position', '2'], seeded.env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('--from-position 5/5 is after --to-position 2/2');
    const missing = await run(['show', 'run', 'run_AAAAAAAAAAAAAAAAAAAAAA'], { DATA_DIR: join(seeded.app.dataDir, 'nothing-here') });
    expect(missing.code).toBe(1);
  });

  it('replay --to kafka: exit 0 and the process ends (producer disconnected)', async () => {
    const prefix = `${uniqueName('cli-process')}.`;
    try {
      const result = await run(['replay', '--category', 'delivery', '--to', 'kafka', '--topic-prefix', prefix, '--json'], {
        ...seeded.env,
        KAFKA_BROKERS: kafkaBrokers().join(','),
      });
      process.stderr.write(`[cli] process replay --to kafka: ${result.ms} ms\n`);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ target: 'kafka', replayed: seeded.deliveryIds.length });
    } finally {
      await deleteTopics(testKafka(kafkaBrokers()), [
        `${prefix}webhooks.events.v1`,
        `${prefix}webhooks.events.v1.dlq`,
        `${prefix}routines.runs.v1`,
        `${prefix}relay.leadership.v1`,
      ]);
    }
  });

  it('tail stops cleanly on SIGINT (exit 0)', async () => {
    let sent = false;
    const result = await run(['tail', '--from-start'], seeded.env, {
      onStdout: (text, kill) => {
        // Once: a second SIGINT kills the process on purpose.
        if (sent || !text.includes(' DeliveryAccepted ')) return;
        sent = true;
        kill('SIGINT');
      },
    });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1\/1 account-catalog AccountConnected /);
  });
});
