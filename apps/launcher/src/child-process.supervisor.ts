import { EXIT_CANNOT_LISTEN, type LaunchReport } from '@wts/platform';
import { backoffDelay } from '@wts/runtime';
import { spawn, type ChildProcess } from 'node:child_process';

export interface SupervisedProcess {
  readonly name: string;
  readonly script: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface SupervisorOptions {
  /** Deaths in a row, each within `stableAfterMs` of its start, before the supervisor gives up. */
  readonly maxRapidExits: number;
  /** A run that lasted this long counts as a success: the next death starts the count again. */
  readonly stableAfterMs: number;
  /** The first restart's delay; each quick death doubles it, up to 15 s. */
  readonly backoffBaseMs: number;
  /** Called once when a service cannot be kept running: the reason, in one line. */
  readonly onGiveUp: (reason: string) => void;
}

/** Where a service listens, and where its health and metrics are (the same place unless the ingress has OPS_PORT). */
export interface ServiceAddress {
  readonly url: URL;
  readonly opsUrl: URL;
}

export const DEFAULT_SUPERVISOR_OPTIONS: Omit<SupervisorOptions, 'onGiveUp'> = {
  maxRapidExits: 5,
  stableAfterMs: 30_000,
  backoffBaseMs: 500,
};

/**
 * Runs each service as its own OS process with an IPC channel, prefixes its output, and restarts
 * it (with backoff) if it dies — but not forever: a service that says it cannot listen (the port is
 * taken) is given up at once, one that dies `maxRapidExits` times in a row soon after starting is
 * given up with its last exit. Where a service listens is what that very process reports over its
 * channel, never whatever answers on a port.
 */
export class ChildProcessSupervisor {
  private readonly children = new Map<string, ChildProcess>();
  private readonly listening = new Map<string, { promise: Promise<ServiceAddress>; resolve: (address: ServiceAddress) => void }>();
  private stopping = false;
  private gaveUp = false;

  constructor(private readonly options: SupervisorOptions) {}

  start(service: SupervisedProcess, rapidExits = 0): void {
    if (this.stopping) return;
    const child = spawn(process.execPath, [service.script], { env: service.env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.children.set(service.name, child);
    // The channel must not keep the launcher alive on its own (signals and stop() end it).
    child.channel?.unref();
    if (child.stdout) prefixLines(child.stdout, process.stdout, service.name);
    if (child.stderr) prefixLines(child.stderr, process.stderr, service.name);
    let fatal: string | undefined;
    child.on('message', (message: unknown) => {
      if (!isLaunchReport(message) || message.pid !== child.pid) return;
      if (message.type === 'wts:listening') {
        const url = new URL(message.url);
        this.listeningEntry(service.name).resolve({ url, opsUrl: message.opsUrl === undefined ? url : new URL(message.opsUrl) });
      } else fatal = message.reason;
    });
    const startedAt = Date.now();
    child.on('exit', (code, signal) => {
      if (this.stopping) return;
      const how = signal ?? `exit code ${code}`;
      if (code === EXIT_CANNOT_LISTEN) return this.giveUp(fatal ?? `${service.name} cannot listen (${how})`);
      const next = Date.now() - startedAt >= this.options.stableAfterMs ? 1 : rapidExits + 1;
      if (next >= this.options.maxRapidExits) {
        return this.giveUp(
          `${service.name} exited ${next} times in a row within ${this.options.stableAfterMs / 1000} s of starting (last: ${how}); giving up — its log lines above say why`,
        );
      }
      const delay = backoffDelay({ initialDelayMs: this.options.backoffBaseMs, maxDelayMs: 15_000 }, next);
      process.stderr.write(
        `[launcher] ${service.name} exited (${how}); restarting in ${delay} ms (${next} of ${this.options.maxRapidExits - 1} quick restarts)\n`,
      );
      setTimeout(() => this.start(service, next), delay).unref();
    });
  }

  /** Where the named service listens, as that process reported it (its first report). */
  whenListening(name: string): Promise<ServiceAddress> {
    return this.listeningEntry(name).promise;
  }

  /** Whether the named service's current process is alive (not exited). */
  isRunning(name: string): boolean {
    const child = this.children.get(name);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.children.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  }

  private giveUp(reason: string): void {
    if (this.gaveUp) return;
    this.gaveUp = true;
    this.options.onGiveUp(reason);
  }

  private listeningEntry(name: string): { promise: Promise<ServiceAddress>; resolve: (address: ServiceAddress) => void } {
    let entry = this.listening.get(name);
    if (!entry) {
      let resolve: (address: ServiceAddress) => void = () => undefined;
      const promise = new Promise<ServiceAddress>((done) => (resolve = done));
      entry = { promise, resolve };
      this.listening.set(name, entry);
    }
    return entry;
  }
}

function prefixLines(stream: NodeJS.ReadableStream, out: NodeJS.WritableStream, name: string): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

function isLaunchReport(message: unknown): message is LaunchReport {
  if (typeof message !== 'object' || message === null) return false;
  const candidate = message as Partial<Record<keyof LaunchReport, unknown>> & { url?: unknown; opsUrl?: unknown; reason?: unknown };
  if (typeof candidate.pid !== 'number' || typeof candidate.service !== 'string') return false;
  if (candidate.type === 'wts:listening')
    return typeof candidate.url === 'string' && (candidate.opsUrl === undefined || typeof candidate.opsUrl === 'string');
  return candidate.type === 'wts:fatal' && typeof candidate.reason === 'string';
}
