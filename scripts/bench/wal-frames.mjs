#!/usr/bin/env node
/**
 * WAL pages written per 202 (issue 34): for each checkout given, starts its ingress alone from its
 * dist/ (its own bench kit, embedded default, fresh DATA_DIR on 127.0.0.1), warms up for 2 s at one
 * connection, then traces the ingress process with `strace -f -e trace=pwrite64,fsync,fdatasync`
 * through 4 s more of the bench's 177-byte body (this checkout's BODY, so every build gets the same
 * request) and prints the calls counted by file descriptor and size. The file written 4096 + 24
 * bytes at a time and fsynced once per commit is events.sqlite-wal: its 4096-byte writes divided
 * by its fsyncs are the pages per commit. Needs strace (apt-get install strace).
 *
 *   node scripts/bench/wal-frames.mjs /work/wt-4b /work/main
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BODY } from './bench-kit.mjs';

const CALL = /(pwrite64|fsync|fdatasync)\((\d+)(?:, .*, (\d+), \d+\))?/;

for (const checkout of process.argv.slice(2)) {
  const kit = await import(join(checkout, 'scripts', 'bench', 'bench-kit.mjs'));
  const stack = await kit.startStack({ label: 'wal-frames', withDispatcher: false });
  const traceFile = join(tmpdir(), `wal-frames-${process.pid}.txt`);
  try {
    const hook = await kit.setUpWebhook(stack.baseUrl, stack.token, 'wal-frames');
    const request = { baseUrl: stack.baseUrl, path: hook.path, body: BODY, connections: 1 };
    const headers = { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' };
    await kit.load({ ...request, headers, seconds: 2 });
    const args = ['-f', '-p', String(stack.ingress.child.pid), '-e', 'trace=pwrite64,fsync,fdatasync', '-o', traceFile];
    const tracer = spawn('strace', args, { stdio: 'ignore' });
    await kit.sleep(500);
    const run = await kit.load({ ...request, headers, seconds: 4 });
    tracer.kill('SIGINT');
    await new Promise((resolveExit) => tracer.once('exit', resolveExit));
    const counts = new Map();
    for (const line of readFileSync(traceFile, 'utf8').split('\n')) {
      const call = CALL.exec(line);
      if (!call) continue;
      const key = call[1] === 'pwrite64' ? `pwrite fd ${call[2]} bytes ${call[3] ?? '?'}` : `${call[1]}(${call[2]})`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    process.stdout.write(`## ${checkout}: ${Math.round(run.rps)} requests/s, ${run.unexpected_status} answers other than 202\n`);
    for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1])) process.stdout.write(`${String(count).padStart(7)} ${key}\n`);
  } finally {
    rmSync(traceFile, { force: true });
    await stack.stop();
  }
}
