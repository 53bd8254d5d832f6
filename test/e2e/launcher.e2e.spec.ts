import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, assertBuilt, freePort, waitFor } from '../support/service-processes';

const LAUNCHER_MAIN = join(DIST, 'launcher', 'src', 'main.js');

/** `npm start` as a newcomer runs it: an empty DATA_DIR, no ADMIN_TOKEN, output through a pipe. */
describe('npm start (the launcher) on an empty DATA_DIR', () => {
  let dataDir: string;
  let launcher: ChildProcess | undefined;
  let output = '';

  beforeEach(() => {
    assertBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-launcher-'));
    output = '';
  });

  afterEach(() => {
    if (launcher && launcher.exitCode === null && launcher.signalCode === null) launcher.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<{ port: number; dispatcherPort: number; services: number[] }> {
    const [port, dispatcherPort] = [await freePort(), await freePort()];
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: join(dataDir, 'data'), PORT: String(port), DISPATCHER_PORT: String(dispatcherPort) };
    launcher = spawn(process.execPath, [LAUNCHER_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await waitFor(async () => output.includes('Webhook trigger service is running'), 60_000, `the banner; output so far:\n${output}`);
    const services = childrenOf(launcher.pid as number);
    expect(services).toHaveLength(2);
    return { port, dispatcherPort, services };
  }

  it('starts both services with no error line, shows the banner and a generated admin token, not a wall of route mappings', async () => {
    const { port, dispatcherPort } = await start();
    // Both services have opened the store and are serving by now; give them a moment to say more.
    await waitFor(async () => output.includes('run-dispatcher following accepted deliveries'), 10_000, 'the dispatcher line');
    expect(output).not.toMatch(/error|failed|SQLITE_BUSY|exited/i);
    expect(output).not.toContain('Mapped {');
    expect(output).toContain(`Base URL      http://localhost:${port}`);
    expect(output).toMatch(/Authorization: Bearer [A-Za-z0-9_-]{32}/);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(output).toContain(`Health        http://localhost:${port}/health/ready   (run-dispatcher: http://localhost:${dispatcherPort}/health/ready)`);
    // Both services: health and metrics.
    for (const base of [`http://127.0.0.1:${port}`, `http://127.0.0.1:${dispatcherPort}`]) {
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('process_cpu_seconds_total');
    }

    launcher?.kill('SIGINT');
    await new Promise((resolve) => launcher?.once('exit', resolve));
  }, 90_000);

  it('takes its services down with it when it is killed -9', async () => {
    const { services } = await start();
    launcher?.kill('SIGKILL');
    // The services notice within a second and exit after at most a 10 s grace (supervisor.watch.ts).
    // Their stdout and stderr went away with the launcher: exiting must not wait on them (it did once:
    // sonic-boom 4's flushSync retried a write to a broken pipe forever — see service-logger.exit.int).
    const killedAt = Date.now();
    await waitFor(async () => services.every((pid) => !alive(pid)), 15_000, `services ${services.join(', ')} to stop after the launcher died`);
    process.stderr.write(`[launcher] services gone ${Date.now() - killedAt} ms after the launcher was killed -9\n`);
  }, 90_000);
});

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}
