#!/usr/bin/env node
/**
 * CPU per 202, per process and per thread, from /proc (no profiler in the way): each build's stack
 * (ingress + dispatcher, embedded default, on 127.0.0.1) under autocannon at one number of
 * connections, the builds alternated round by round. A thread using less than 0.5 µs per request
 * is left out. Prints one JSON line per run: req/s, and µs per request for each process (`total`)
 * and its busy threads, the main thread as `main`, the others by their offset from the pid (the
 * store's writer thread is the busy one after main).
 *
 *   node scripts/bench/cpu-per-request.mjs --builds /work/wt-base,/work/main --rounds 3 [--connections 64] [--alone]
 *
 * --brokers host:port runs the Kafka shape (KAFKA_BROKERS) against a broker already started, and
 * --rate N offers N requests/s instead of as many as are answered; with a broker the count stops
 * 3 s after the load, so that the dispatcher's runs are in it.
 *
 * Each directory must hold a built checkout (dist/ and scripts/bench/bench-kit.mjs).
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { BODY, load, threadCpuSeconds } from './bench-kit.mjs';
import { positiveInteger, readOptions, text } from './command-line.mjs';

const options = readOptions(
  process.argv.slice(2),
  { builds: [], rounds: 3, seconds: 10, connections: 64, alone: false, brokers: undefined, rate: undefined },
  {
    builds: (value) => value.split(','),
    rounds: positiveInteger,
    seconds: positiveInteger,
    connections: positiveInteger,
    alone: true,
    brokers: text,
    rate: positiveInteger,
  },
);
if (options.builds.length === 0) throw new Error('--builds names the checkouts, comma-separated');

for (let round = 0; round < options.rounds; round += 1) {
  for (const build of round % 2 === 0 ? options.builds : [...options.builds].reverse()) {
    const kit = await import(join(build, 'scripts', 'bench', 'bench-kit.mjs'));
    const extraEnv = options.brokers ? { KAFKA_BROKERS: options.brokers } : {};
    const stack = await kit.startStack({ label: 'cpu', withDispatcher: !options.alone, extraEnv });
    try {
      const hook = await kit.setUpWebhook(stack.baseUrl, stack.token, 'cpu');
      const request = {
        baseUrl: stack.baseUrl,
        path: hook.path,
        headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
        body: BODY,
      };
      await load({ ...request, connections: 16, seconds: 2 });
      if (options.brokers) await delay(3000);
      const processes = Object.fromEntries(
        Object.entries({ ingress: stack.ingress, dispatcher: stack.dispatcher }).filter(([, service]) => service),
      );
      const before = Object.fromEntries(Object.entries(processes).map(([name, service]) => [name, threadCpuSeconds(service.child.pid)]));
      const run = await load({ ...request, connections: options.connections, seconds: options.seconds, overallRate: options.rate });
      if (options.brokers) await delay(3000);
      const line = { round, build, connections: options.connections, rps: Math.round(run.rps), unexpected: run.unexpected_status };
      for (const [name, service] of Object.entries(processes))
        line[name] = perRequest(service.child.pid, before[name], threadCpuSeconds(service.child.pid), run.requests);
      process.stdout.write(`${JSON.stringify(line)}\n`);
    } finally {
      await stack.stop();
    }
  }
}

/** µs per request: the process's total and its threads' (main, +offset from the pid). */
function perRequest(pid, before, after, requests) {
  const usage = { total: 0 };
  for (const [tid, seconds] of after) {
    const us = ((seconds - (before.get(tid) ?? 0)) * 1e6) / requests;
    usage.total += us;
    if (us >= 0.5) usage[tid === pid ? 'main' : `+${tid - pid}`] = Math.round(us);
  }
  usage.total = Math.round(usage.total);
  return usage;
}
