import { spawn, type ChildProcess } from 'node:child_process';

export interface SupervisedProcess {
  readonly name: string;
  readonly script: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Runs each service as its own OS process, prefixes its output, and restarts it (with backoff)
 * if it dies, until stop() is called. The services are crash-safe by design; this keeps the
 * one-command embedded default running through a crash.
 */
export class ChildProcessSupervisor {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;

  start(process_: SupervisedProcess, attempt = 0): void {
    const child = spawn(process.execPath, [process_.script], { env: process_.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.set(process_.name, child);
    const prefix = (stream: NodeJS.ReadableStream, out: NodeJS.WritableStream): void => {
      let buffered = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) out.write(`[${process_.name}] ${line}\n`);
      });
    };
    if (child.stdout) prefix(child.stdout, process.stdout);
    if (child.stderr) prefix(child.stderr, process.stderr);
    const startedAt = Date.now();
    child.on('exit', (code, signal) => {
      if (this.stopping) return;
      const next = Date.now() - startedAt > 30_000 ? 0 : attempt + 1;
      const delay = Math.min(500 * 2 ** next, 15_000);
      process.stderr.write(`[launcher] ${process_.name} exited (${signal ?? code}); restarting in ${delay} ms\n`);
      setTimeout(() => this.start(process_, next), delay).unref();
    });
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
}
