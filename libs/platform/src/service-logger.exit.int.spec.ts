import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const FACTORY = join(__dirname, '../../../dist/libs/platform/src/service-logger.factory.js');

/**
 * A service whose stdout reader went away (its supervisor was killed -9, a log collector died) must
 * still exit. The JSON logger buffers lines and flushes them synchronously on exit; with
 * sonic-boom 4 that flush retried a write failing with EPIPE forever, so the process never exited
 * (the launcher's "killed -9" test caught it under load). The child here logs a line (buffered,
 * not yet written) once its stdout is closed, then exits: it must be gone within seconds.
 */
describe('the service logger when stdout has no reader any more', () => {
  beforeAll(() => {
    if (!existsSync(FACTORY)) throw new Error(`${FACTORY} is missing: run \`npm run build\` first (npm test does)`);
  });

  it('exit does not hang on the buffered lines it can no longer write', async () => {
    const script = `
      const { createServiceLogger } = require(${JSON.stringify(FACTORY)});
      const logger = createServiceLogger({ level: 'info', format: 'json' }, 'exit-test');
      process.stdin.on('data', () => {
        logger.info('a last line, buffered: the exit flush writes it');
        process.exit(0);
      });
      process.stderr.write('ready\\n');
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the child did not start: ${stderr}`)), 10_000);
      child.stderr.on('data', () => {
        if (stderr.includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // The reader goes away: the child's next write to stdout fails with EPIPE.
    child.stdout.destroy();
    child.stdin.write('exit\n');
    const started = Date.now();
    let hangTimer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      exited.then(() => 'exited' as const),
      new Promise<'hung'>((resolve) => (hangTimer = setTimeout(() => resolve('hung'), 8_000))),
    ]);
    // Not left running after the test: a pending timer holds the jest worker at exit.
    clearTimeout(hangTimer);
    if (outcome === 'hung') child.kill('SIGKILL');
    expect(outcome).toBe('exited');
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 20_000);
});
