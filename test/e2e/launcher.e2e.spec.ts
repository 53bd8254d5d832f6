import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, assertBuilt, freePort } from '../support/service-processes';
import { eventually } from '@wts/testing';

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

  async function start(extraEnv: Record<string, string> = {}): Promise<{ port: number; dispatcherPort: number; services: number[] }> {
    const [port, dispatcherPort] = [await freePort(), await freePort()];
    launcher = spawnLauncher(dataDir, port, dispatcherPort, extraEnv, (text) => (output += text));
    await eventually(async () => output.includes('Webhook trigger service is running'), 60_000, `the banner; output so far:\n${output}`);
    const services = childrenOf(launcher.pid as number);
    expect(services).toHaveLength(2);
    return { port, dispatcherPort, services };
  }

  it('starts both services with no error line, shows the banner and a generated admin token, not a wall of route mappings', async () => {
    const { port, dispatcherPort } = await start();
    // Both services have opened the store and are serving by now; give them a moment to say more.
    await eventually(async () => output.includes('run-dispatcher following accepted deliveries'), 10_000, 'the dispatcher line');
    expect(output).not.toMatch(/error|failed|SQLITE_BUSY|exited/i);
    expect(output).not.toContain('Mapped {');
    expect(output).toContain(`Base URL      http://localhost:${port}`);
    expect(output).toMatch(/Authorization: Bearer [A-Za-z0-9_-]{32}/);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(output).toContain(
      `Health        http://localhost:${port}/health/ready   (run-dispatcher: http://localhost:${dispatcherPort}/health/ready)`,
    );
    // Both services: health and metrics.
    for (const base of [`http://127.0.0.1:${port}`, `http://127.0.0.1:${dispatcherPort}`]) {
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('process_cpu_seconds_total');
    }

    launcher?.kill('SIGINT');
    await new Promise((resolve) => launcher?.once('exit', resolve));
  }, 90_000);

  it('listens on the loopback interface only by default: the admin API, health and metrics are not on the network', async () => {
    const { port, dispatcherPort } = await start();
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(dispatcherPort)).toEqual(['127.0.0.1']);
    expect(output).toContain('Listening on  127.0.0.1 only');
    // Where this machine has another address, nothing answers there.
    for (const address of externalAddresses()) {
      await expect(fetch(`http://${address}:${port}/health/live`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    }
    launcher?.kill('SIGINT');
    await new Promise((resolve) => launcher?.once('exit', resolve));
  }, 90_000);

  it('HOST=0.0.0.0 listens on every interface (what docker-compose sets), and says so', async () => {
    // The compose file's services share this setting (its x-app-env block).
    const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    expect(/x-app-env: &app-env\n(?: {2}.*\n)* {2}HOST: 0\.0\.0\.0\n/.test(compose)).toBe(true);
    const { port, dispatcherPort } = await start({ HOST: '0.0.0.0' });
    expect(listeningAddresses(port)).toEqual(['0.0.0.0']);
    expect(listeningAddresses(dispatcherPort)).toEqual(['0.0.0.0']);
    expect(output).toContain('Listening on  0.0.0.0: reachable from other machines');
    for (const address of externalAddresses()) {
      expect((await fetch(`http://${address}:${port}/health/live`, { signal: AbortSignal.timeout(2_000) })).status).toBe(200);
    }
    launcher?.kill('SIGINT');
    await new Promise((resolve) => launcher?.once('exit', resolve));
  }, 90_000);

  it('OPS_PORT: health and metrics on their own listener (and in the banner), none of them on PORT', async () => {
    const opsPort = await freePort();
    const { port } = await start({ OPS_PORT: String(opsPort) });
    expect(output).toContain(`Health        http://localhost:${opsPort}/health/ready`);
    expect(output).toContain(`Metrics       http://localhost:${opsPort}/metrics`);
    const ops = `http://127.0.0.1:${opsPort}`;
    expect((await fetch(`${ops}/health/ready`)).status).toBe(200);
    expect((await fetch(`${ops}/health/live`)).status).toBe(200);
    expect(await (await fetch(`${ops}/metrics`)).text()).toContain('wts_deliveries_accepted_total');
    for (const path of ['/health/ready', '/readyz', '/health/live', '/healthz', '/metrics']) {
      expect([path, (await fetch(`http://127.0.0.1:${port}${path}`)).status]).toEqual([path, 404]);
    }
    // The API is where it was, and not on the operations listener.
    expect((await fetch(`http://127.0.0.1:${port}/admin/accounts`)).status).toBe(401);
    expect((await fetch(`${ops}/admin/accounts`)).status).toBe(404);
    launcher?.kill('SIGINT');
    await new Promise((resolve) => launcher?.once('exit', resolve));
  }, 90_000);

  it('DISPATCHER_PORT=0: the banner names the port the run-dispatcher got, not 0', async () => {
    await start({ DISPATCHER_PORT: '0' });
    const reported = /run-dispatcher: http:\/\/localhost:(\d+)\/health\/ready/.exec(output)?.[1];
    expect(reported).toBeDefined();
    expect(Number(reported)).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${reported}/health/ready`)).status).toBe(200);
    launcher?.kill('SIGINT');
    await new Promise((resolve) => launcher?.once('exit', resolve));
  }, 90_000);

  it('takes its services down with it when it is killed -9', async () => {
    const { services } = await start();
    launcher?.kill('SIGKILL');
    // The services notice within a second and exit after at most a 10 s grace (supervisor-watch.lifecycle.ts).
    // Their stdout and stderr went away with the launcher: exiting must not wait on them (it did once:
    // sonic-boom 4's flushSync retried a write to a broken pipe forever — see service-logger.exit.int).
    const killedAt = Date.now();
    await eventually(
      async () => services.every((pid) => !alive(pid)),
      15_000,
      `services ${services.join(', ')} to stop after the launcher died`,
    );
    process.stderr.write(`[launcher] services gone ${Date.now() - killedAt} ms after the launcher was killed -9\n`);
  }, 90_000);
});

/**
 * Another program on a service's port, answering 200 to everything (readiness included): the
 * launcher must neither count it as its service nor lead a newcomer to it.
 */
describe('npm start with a port already taken', () => {
  let dataDir: string;
  let impostor: Server | undefined;

  beforeEach(() => {
    assertBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-launcher-taken-'));
  });

  afterEach(async () => {
    await new Promise((resolve) => (impostor ? impostor.close(resolve) : resolve(undefined)));
    impostor = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function listenImpostor(port: number, host: string): Promise<void> {
    impostor = createServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    await new Promise<void>((resolve) => impostor?.listen(port, host, resolve));
  }

  it.each([
    ['PORT', '127.0.0.1'],
    ['DISPATCHER_PORT', '0.0.0.0'],
  ])(
    '%s taken (by a server on %s that answers 200): one line naming it, a non-zero exit within seconds, no banner, no token, no service left',
    async (variable, impostorHost) => {
      const [port, dispatcherPort] = [await freePort(), await freePort()];
      const taken = variable === 'PORT' ? port : dispatcherPort;
      await listenImpostor(taken, impostorHost);
      const startedAt = Date.now();
      let output = '';
      const launcher = spawnLauncher(dataDir, port, dispatcherPort, {}, (text) => (output += text));
      const spawnedServices: number[] = [];
      const watch = setInterval(() => spawnedServices.push(...childrenOf(launcher.pid as number)), 50);
      const code = await new Promise<number | null>((resolve) => launcher.once('exit', (exitCode) => resolve(exitCode)));
      clearInterval(watch);
      const elapsed = Date.now() - startedAt;
      expect(code).not.toBe(0);
      expect(elapsed).toBeLessThan(10_000);
      const lines = output.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${taken} (${variable}) is already in use`);
      expect(lines[0]).toContain(`set ${variable} to a free port`);
      expect(output).not.toContain('is running');
      expect(output).not.toContain('Bearer');
      expect(spawnedServices).toEqual([]);
    },
    30_000,
  );
});

/** The local addresses with a listening TCP socket on `port`, read from the kernel's tables (IPv4). */
/** The launcher as a user starts it: a bare environment, DATA_DIR under `dataDir`, the two ports; its output to `onOutput`. */
function spawnLauncher(
  dataDir: string,
  port: number,
  dispatcherPort: number,
  extraEnv: Record<string, string>,
  onOutput: (text: string) => void,
): ChildProcess {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: join(dataDir, 'data'),
    PORT: String(port),
    DISPATCHER_PORT: String(dispatcherPort),
    ...extraEnv,
  };
  const child = spawn(process.execPath, [LAUNCHER_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  return child;
}

function listeningAddresses(port: number): string[] {
  const listening = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 3 && fields[3] === '0A' && parseInt(fields[1].split(':')[1], 16) === port);
  return listening.map((fields) => {
    const hex = fields[1].split(':')[0];
    return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  });
}

/** This machine's non-loopback IPv4 addresses (none on some machines: then only the kernel's table is checked). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
    .map((entry) => (entry as { address: string }).address);
}

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
