/* global fetch, setTimeout, clearTimeout, performance, URL */
/**
 * What the benchmark scripts share: the services as OS processes from dist/ (loopback only, a
 * temporary DATA_DIR, stopped at the end however the script ends), readiness, memory and CPU read
 * from /proc, a webhook set up through the admin API, and a bounded autocannon run.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
export { cpuSeconds, threadCpuSeconds } from './proc-cpu.mjs';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = join(REPO, 'dist', 'apps');
export { startKafkaBroker } from './kafka-broker.mjs';

/** The delivery body the benchmarks send (177 bytes of JSON; its `data` member is the payload a run gets). */
export const BODY = JSON.stringify({
  data: { alert: 'disk full', host: 'db-1', service: 'postgres', severity: 'critical', note: 'x'.repeat(80) },
});

export const MAINS = {
  ingress: join(DIST, 'ingress', 'src', 'main.js'),
  dispatcher: join(DIST, 'run-dispatcher', 'src', 'main.js'),
  cli: join(DIST, 'cli', 'src', 'main.js'),
};

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

export function adminToken() {
  return randomBytes(24).toString('base64url');
}

/** The environment of a service on the embedded default: nothing inherited that would switch it elsewhere. */
export function embeddedEnv(extra) {
  // DISPATCHER_PORT 0: each run-dispatcher's health/metrics server takes a free port, so several stacks run side by side.
  const env = {
    ...process.env,
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    SUPERVISOR_PID: String(process.pid),
    DISPATCHER_PORT: '0',
    ...extra,
  };
  for (const name of ['EVENTSTORE_CONNECTION_STRING', 'KAFKA_BROKERS', 'REDIS_URL', 'DATABASE_URL']) if (!(name in extra)) delete env[name];
  return env;
}

/**
 * One service as an OS process. `node` flags (e.g. --max-old-space-size) go before the script;
 * `readyLine` (a string or a RegExp) resolves `lineSeen` once the output shows it; `lineSeen` rejects
 * if the process exits first.
 */
export function startService(name, script, env, { nodeFlags = [], readyLine } = {}) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let markReady;
  let markFailed;
  const lineSeen = new Promise((resolveLine, rejectLine) => {
    markReady = resolveLine;
    markFailed = rejectLine;
  });
  lineSeen.catch(() => undefined); // awaited only by callers that wait for the line
  const shows = (text) => (readyLine instanceof RegExp ? readyLine.test(text) : text.includes(readyLine));
  const keep = (chunk) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
    if (readyLine && shows(output)) markReady(performance.now() - startedAt);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
  void exited.then(({ code, signal }) => markFailed(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${output}`)));
  return { name, child, startedAt, exited, lineSeen, output: () => output };
}

export async function stopService(service) {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
  service.child.kill('SIGTERM');
  await service.exited;
  clearTimeout(timer);
}

/** Milliseconds from the process start until `url` answers 200 (polled every 5 ms). */
export async function msUntilReady(service, url, timeoutMs = 120_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (service.child.exitCode !== null) throw new Error(`${service.name} exited before it was ready:\n${service.output()}`);
    try {
      if ((await fetch(url)).ok) return performance.now() - service.startedAt;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`${service.name} not ready within ${timeoutMs} ms:\n${service.output()}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 5));
  }
}

/** Resident memory of a process, in MiB. */
export function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line)[1]) / 1024;
}

export function assertLoopback(baseUrl) {
  const host = new URL(baseUrl).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw new Error(`load goes to 127.0.0.1 only, not ${host}`);
}

/** One admin API call with the admin token; the parsed JSON answer, or an error naming the status. */
export async function admin(baseUrl, token, method, path, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
  return JSON.parse(text);
}

/**
 * An account, a supervised routine and its enabled webhook: { webhookId, routineId, secret, path, email }.
 * `accountOverrideAllowed` lets requests select the account (account_email / X-Service-Account-Email).
 * `verification` ({ scheme, secret? }) makes it a signed sender's webhook; `secret` is then the
 * pasted one, or the one the service made (Standard Webhooks).
 */
export async function setUpWebhook(baseUrl, token, label = 'bench', { accountOverrideAllowed = false, verification } = {}) {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
  const account = await admin(baseUrl, token, 'POST', '/admin/accounts', { email });
  const routine = await admin(baseUrl, token, 'POST', '/admin/routines', {
    name: `Benchmark ${label}`,
    instructions: 'Summarise the delivery.',
    tools: [{ name: 'search', sends_externally: false }],
    mode: 'supervised',
    account_scope: [account.id],
  });
  const webhook = await admin(baseUrl, token, 'POST', `/admin/routines/${routine.id}/webhook/enable`, {
    default_account: email,
    account_override_allowed: accountOverrideAllowed,
    ...(verification ? { verification } : {}),
  });
  return {
    webhookId: webhook.webhook_id,
    routineId: routine.id,
    secret: verification?.secret ?? webhook.secret,
    path: `/workflow-webhooks/${webhook.webhook_id}`,
    email,
  };
}

/** Disables a routine's webhook (its URL then answers the same 404 as an unknown one). */
export async function disableWebhook(baseUrl, token, routineId) {
  await admin(baseUrl, token, 'POST', `/admin/routines/${routineId}/webhook/disable`, {});
}

/**
 * A bounded autocannon run against 127.0.0.1: `connections` concurrent, for `seconds` (at most
 * `overallRate` requests per second when given, else as fast as answers come). Returns
 * requests/s and latency percentiles (ms), with status counts, so a run that answered anything
 * but `expectStatus` is visible. `requests` (autocannon's, e.g. `[{ setupRequest }]`) varies the
 * request per send, the other options being its defaults. `amount` sends exactly that many
 * requests in all instead of running for `seconds`.
 */
export async function load({
  baseUrl,
  path,
  headers,
  body,
  connections,
  seconds,
  method = 'POST',
  expectStatus = 202,
  overallRate,
  requests,
  amount,
}) {
  assertLoopback(baseUrl);
  let unexpected = 0;
  const result = await autocannon({
    url: `${baseUrl}${path}`,
    method,
    headers,
    body,
    connections,
    pipelining: 1,
    // A fixed offered rate (requests per second, across all connections) instead of as fast as it answers.
    ...(overallRate ? { overallRate } : {}),
    ...(requests ? { requests } : {}),
    ...(amount ? { amount } : { duration: seconds }),
    setupClient: (client) =>
      client.on('response', (statusCode) => {
        if (statusCode !== expectStatus) unexpected += 1;
      }),
  });
  return {
    connections,
    seconds,
    requests: result.requests.total,
    rps: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    p999_ms: result.latency.p99_9 ?? result.latency.p999,
    errors: result.errors + result.timeouts,
    unexpected_status: unexpected,
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The ingress (and the dispatcher when `withDispatcher`) on a fresh temporary DATA_DIR, rate
 * limit out of the way, ready to answer. `nodeFlags` go to both processes, `perService.ingress`
 * / `perService.dispatcher` add environment to one. `stop()` stops both and deletes the directory.
 */
export async function startStack({ withDispatcher = true, extraEnv = {}, label = 'stack', nodeFlags = [], perService = {} } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), `wts-${label}-`));
  const port = await freePort();
  const token = adminToken();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = embeddedEnv({
    PORT: String(port),
    DATA_DIR: dataDir,
    ADMIN_TOKEN: token,
    WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    ...extraEnv,
  });
  const stack = {
    dataDir,
    port,
    token,
    baseUrl,
    env,
    storeFile: join(dataDir, 'events.sqlite'),
    ingress: undefined,
    dispatcher: undefined,
  };
  stack.startIngress = async () => {
    stack.ingress = startService('ingress', MAINS.ingress, { ...env, ...perService.ingress }, { nodeFlags });
    await msUntilReady(stack.ingress, `${baseUrl}/readyz`);
  };
  stack.startDispatcher = async () => {
    stack.dispatcher = startService(
      'run-dispatcher',
      MAINS.dispatcher,
      { ...env, ...perService.dispatcher },
      { readyLine: /run-dispatcher (following|consuming)/, nodeFlags },
    );
    await stack.dispatcher.lineSeen;
  };
  stack.stop = async () => {
    await Promise.all([stack.ingress, stack.dispatcher].filter(Boolean).map(stopService));
    // BENCH_KEEP_DATA=1 leaves the DATA_DIR for a look after the run (its path is logged).
    if (process.env.BENCH_KEEP_DATA === '1') process.stderr.write(`[bench] DATA_DIR kept: ${dataDir}\n`);
    else rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await stack.startIngress();
    if (withDispatcher) await stack.startDispatcher();
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}
