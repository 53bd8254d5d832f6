import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { eventually } from '@wts/testing';

export const DIST = join(__dirname, '..', '..', 'dist', 'apps');
export const INGRESS_MAIN = join(DIST, 'ingress', 'src', 'main.js');
export const DISPATCHER_MAIN = join(DIST, 'run-dispatcher', 'src', 'main.js');

export function assertBuilt(): void {
  for (const file of [INGRESS_MAIN, DISPATCHER_MAIN]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm test does)`);
  }
}

/**
 * A free port held until `release()`: what is started meanwhile (another server listening on port
 * 0) cannot be handed the same port, as it can be between freePort() and a later listen.
 */
export async function reservePort(): Promise<{ readonly port: number; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ port, release: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

export async function freePort(): Promise<number> {
  const { port, release } = await reservePort();
  await release();
  return port;
}

const WHOLE_OUTPUT_LIMIT = 64 * 1024 * 1024;

/** One service as a real OS process from the build output, with its output kept for diagnosis. */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  readonly output: string[] = [];
  /** Everything printed, for `printed`, up to WHOLE_OUTPUT_LIMIT bytes. */
  private readonly whole: Buffer[] = [];
  private wholeBytes = 0;

  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(): void {
    // SUPERVISOR_PID: if this test process dies (crash, kill -9), the service stops by itself.
    // DISPATCHER_PORT 0: several dispatchers on one machine each take a free port (a test that
    // scrapes one passes its own).
    const env = { ...process.env, SUPERVISOR_PID: String(process.pid), DISPATCHER_PORT: '0', ...this.env };
    const child = spawn(process.execPath, [this.script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => this.keep(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.keep(chunk));
    this.child = child;
  }

  private keep(chunk: Buffer): void {
    this.output.push(chunk.toString('utf8'));
    if (this.output.length > 500) this.output.shift();
    this.wholeBytes += chunk.length;
    if (this.wholeBytes <= WHOLE_OUTPUT_LIMIT) this.whole.push(chunk);
  }

  /** Which of `needles` the service has printed (stdout or stderr, every start), byte for byte. */
  printed(needles: readonly string[]): string[] {
    if (this.wholeBytes > WHOLE_OUTPUT_LIMIT) throw new Error(`${this.name} printed ${this.wholeBytes} bytes, more than printed() keeps`);
    const all = Buffer.concat(this.whole);
    return needles.filter((needle) => all.includes(Buffer.from(needle, 'utf8')));
  }

  /** kill -9: no shutdown hooks, no flush, no checkpoint save. */
  async kill9(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  /** How the last run ended: undefined while it runs (or before the first start). */
  get exit(): { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined {
    const child = this.child;
    if (!child || (child.exitCode === null && child.signalCode === null)) return undefined;
    return { code: child.exitCode, signal: child.signalCode };
  }

  tail(lines = 40): string {
    return this.output.join('').split('\n').slice(-lines).join('\n');
  }
}

export interface ReadyPair {
  readonly ingress: ServiceProcess;
  readonly dispatcher: ServiceProcess;
  readonly ingressUrl: string;
  readonly dispatcherUrl: string;
}

/** What only one of the pair gets (e.g. its own Kafka credentials). */
export interface PairEnvironments {
  readonly ingress?: NodeJS.ProcessEnv;
  readonly dispatcher?: NodeJS.ProcessEnv;
}

/**
 * The ingress and the run-dispatcher from dist/ with `env` (and each its own of `own`), each on a
 * free port (PORT, PUBLIC_BASE_URL and DISPATCHER_PORT set here), resolved once both answer
 * /health/ready; both stopped again if they never do.
 */
export async function startReadyPair(env: NodeJS.ProcessEnv, own: PairEnvironments = {}): Promise<ReadyPair> {
  const [port, dispatcherPort] = [await freePort(), await freePort()];
  const ingressUrl = `http://127.0.0.1:${port}`;
  const dispatcherUrl = `http://127.0.0.1:${dispatcherPort}`;
  const withPorts = { ...env, PORT: String(port), PUBLIC_BASE_URL: ingressUrl, DISPATCHER_PORT: String(dispatcherPort) };
  const ingress = new ServiceProcess('ingress', INGRESS_MAIN, { ...withPorts, ...own.ingress });
  const dispatcher = new ServiceProcess('run-dispatcher', DISPATCHER_MAIN, { ...withPorts, ...own.dispatcher });
  ingress.start();
  dispatcher.start();
  try {
    await eventually(async () => (await fetch(`${ingressUrl}/health/ready`)).ok, 60_000, `the ingress to be ready\n${ingress.tail()}`);
    await eventually(
      async () => (await fetch(`${dispatcherUrl}/health/ready`)).ok,
      60_000,
      `the dispatcher to be ready\n${dispatcher.tail()}`,
    );
  } catch (error) {
    await Promise.all([ingress.stop(), dispatcher.stop()]);
    throw error;
  }
  return { ingress, dispatcher, ingressUrl, dispatcherUrl };
}
