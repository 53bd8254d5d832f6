#!/usr/bin/env node
/* global fetch, performance, setTimeout, clearTimeout, AbortSignal, URL */
/**
 * Bounded load test of the public webhook endpoint on this machine (loopback only).
 *
 * By default it starts its own ingress from dist/ on a free port with a temporary DATA_DIR (the
 * embedded SQLite store), a generated admin token and the highest rate limit allowed (1,000,000
 * a minute, never reached here, so no 429), sets a webhook up through the admin API, sends a
 * warm-up, then a fixed number of requests from N concurrent workers, and reports requests/s
 * and latency percentiles. It stops the ingress and deletes the data directory when done.
 *
 *   npm run build
 *   node scripts/bench/webhook-load.mjs --requests 20000 --concurrency 32
 *   node scripts/bench/webhook-load.mjs --redis redis://127.0.0.1:6379      # limiter in Redis
 *   node scripts/bench/webhook-load.mjs --with-dispatcher                    # dispatcher running too
 *   node scripts/bench/webhook-load.mjs --base-url http://127.0.0.1:3000 --admin-token T   # a running ingress
 *
 * Options: --requests N (10000) --concurrency N (32) --warmup N (500) --body-bytes N (~200)
 * --dist DIR (<repo>/dist) --json (one JSON line instead of the table).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './bench-kit.mjs';
import { cpuSeconds as processCpuSeconds } from './proc-cpu.mjs';
import { integerUpTo, readOptions, text } from './command-line.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAX_REQUESTS = 1_000_000;
const MAX_DURATION_MS = 10 * 60_000;

const options = parseArgs(process.argv.slice(2));
const started = [];

try {
  await main();
} finally {
  await Promise.all(started.map(stopProcess));
  if (options.dataDir) rmSync(options.dataDir, { recursive: true, force: true });
}

async function main() {
  let baseUrl = options.baseUrl;
  let adminToken = options.adminToken;
  if (!baseUrl) {
    const port = await freePort();
    adminToken = randomBytes(24).toString('base64url');
    options.dataDir = mkdtempSync(join(tmpdir(), 'wts-bench-'));
    const env = {
      ...process.env,
      PORT: String(port),
      DATA_DIR: options.dataDir,
      ADMIN_TOKEN: adminToken,
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000', // the highest allowed: never reached here
      LOG_LEVEL: 'warn',
    };
    delete env.EVENTSTORE_CONNECTION_STRING;
    delete env.KAFKA_BROKERS;
    if (options.redis) env.REDIS_URL = options.redis;
    else delete env.REDIS_URL;
    baseUrl = `http://127.0.0.1:${port}`;
    started.push(startProcess('ingress', join(options.dist, 'apps', 'ingress', 'src', 'main.js'), env));
    if (options.withDispatcher) {
      started.push(startProcess('run-dispatcher', join(options.dist, 'apps', 'run-dispatcher', 'src', 'main.js'), env));
    }
    await waitUntilReady(`${baseUrl}/readyz`);
  }
  assertLoopback(baseUrl);
  if (!adminToken) throw new Error('--admin-token is required with --base-url');

  const webhook = await setUpWebhook(baseUrl, adminToken);
  const body = JSON.stringify({ data: { alert: 'disk full', host: 'db-1', padding: 'x'.repeat(Math.max(0, options.bodyBytes - 60)) } });

  await runLoad(webhook, body, options.warmup, options.concurrency);
  const cpuBefore = started.map(cpuSeconds);
  const result = await runLoad(webhook, body, options.requests, options.concurrency);
  const cpuAfter = started.map(cpuSeconds);
  // CPU time the services spent per request: far less sensitive to other load on the machine
  // than requests/s, and what capacity planning needs (cores / cost = requests/s per core).
  if (cpuBefore.every((v) => v !== undefined) && cpuAfter.every((v) => v !== undefined) && started.length > 0) {
    result.serverCpuMsPerRequest = Object.fromEntries(
      started.map((child, i) => [child.serviceName, ((cpuAfter[i] - cpuBefore[i]) * 1000) / result.requests]),
    );
  }
  report(result, body.length);
}

/** Fixed count of requests, `concurrency` workers each sending the next one when its last answered. */
async function runLoad(webhook, body, total, concurrency) {
  const latencies = new Float64Array(total);
  const statuses = new Map();
  let next = 0;
  let errors = 0;
  const deadline = Date.now() + MAX_DURATION_MS;
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= total || Date.now() > deadline) return;
      const t0 = performance.now();
      try {
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${webhook.secret}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      } catch {
        errors += 1;
      }
      latencies[index] = performance.now() - t0;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - t0;
  const done = Math.min(next, total);
  const sorted = Array.from(latencies.subarray(0, done)).sort((a, b) => a - b);
  const pct = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return {
    requests: done,
    concurrency,
    elapsedMs,
    requestsPerSecond: done / (elapsedMs / 1000),
    latencyMs: {
      p50: pct(50),
      p95: pct(95),
      p99: pct(99),
      max: sorted.at(-1) ?? 0,
      mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
    },
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    errors,
  };
}

function report(result, bodyBytes) {
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  const setup = {
    limiter: options.redis ? 'redis' : 'memory',
    dispatcher: options.withDispatcher,
    bodyBytes,
    target: options.baseUrl ?? 'own ingress (embedded SQLite store)',
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...result, setup, machine })}\n`);
    return;
  }
  const f = (n) => n.toFixed(1);
  process.stdout.write(
    [
      `target        ${setup.target}; limiter ${setup.limiter}; dispatcher ${setup.dispatcher ? 'running' : 'not running'}`,
      `machine       ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}`,
      `load          ${result.requests} requests, ${result.concurrency} concurrent, ${bodyBytes}-byte JSON body`,
      `throughput    ${f(result.requestsPerSecond)} requests/s over ${f(result.elapsedMs / 1000)} s`,
      `latency ms    p50 ${f(result.latencyMs.p50)}  p95 ${f(result.latencyMs.p95)}  p99 ${f(result.latencyMs.p99)}  max ${f(result.latencyMs.max)}`,
      `statuses      ${JSON.stringify(result.statuses)}  errors ${result.errors}`,
      ...(result.serverCpuMsPerRequest
        ? [
            `server CPU    ${Object.entries(result.serverCpuMsPerRequest)
              .map(([name, ms]) => `${name} ${ms.toFixed(3)} ms`)
              .join(', ')} per request`,
          ]
        : []),
      '',
    ].join('\n'),
  );
  if (Object.keys(result.statuses).some((status) => status !== '202') || result.errors > 0) process.exitCode = 1;
}

async function setUpWebhook(baseUrl, token) {
  const call = async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const account = await call('POST', '/admin/accounts', { email });
  const routine = await call('POST', '/admin/routines', {
    name: 'Benchmark',
    instructions: 'Triage the alert.',
    tools: [{ name: 'search', sends_externally: false }],
    mode: 'supervised',
    account_scope: [account.id],
  });
  const webhook = await call('POST', `/admin/routines/${routine.id}/webhook/enable`, {
    default_account: email,
    account_override_allowed: false,
  });
  // The URL is built from PUBLIC_BASE_URL; send to the address measured instead.
  return { url: `${baseUrl}${new URL(webhook.url).pathname}`, secret: webhook.secret };
}

/** user + system CPU seconds of a child process (Linux /proc), or undefined elsewhere. */
function cpuSeconds(child) {
  try {
    return processCpuSeconds(child.pid);
  } catch {
    return undefined;
  }
}

function startProcess(name, script, env) {
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.serviceName = name;
  child.stderr.on('data', (chunk) => process.stderr.write(`[${name}] ${chunk}`));
  child.on('exit', (code, signal) => {
    if (!child.stopping) process.stderr.write(`[${name}] exited early (code ${code}, signal ${signal})\n`);
  });
  return child;
}

function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.stopping = true;
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

async function waitUntilReady(url) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (started.some((child) => child.exitCode !== null)) throw new Error('a service exited before it was ready');
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${url} did not become ready within 60 s`);
}

/** Load goes to this machine only. */
function assertLoopback(baseUrl) {
  const host = new URL(baseUrl).hostname;
  if (!(host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`refusing to send load to ${host}: loopback addresses only`);
  }
}

function parseArgs(argv) {
  return readOptions(
    argv,
    {
      requests: 10_000,
      concurrency: 32,
      warmup: 500,
      bodyBytes: 200,
      dist: join(REPO, 'dist'),
      json: false,
      withDispatcher: false,
    },
    {
      requests: integerUpTo(MAX_REQUESTS),
      concurrency: integerUpTo(1024),
      warmup: integerUpTo(MAX_REQUESTS),
      bodyBytes: integerUpTo(200_000),
      dist: (value) => resolve(value),
      redis: text,
      withDispatcher: true,
      baseUrl: (value) => value.replace(/\/+$/, ''),
      adminToken: text,
      json: true,
    },
    (flag) => `unknown option ${flag} (see the comment at the top of ${fileURLToPath(import.meta.url)})`,
  );
}
