#!/usr/bin/env node
/* global performance */
/**
 * Restart-to-ready time and memory of the ingress and the run-dispatcher, on an empty store and
 * on one holding N earlier deliveries (with their runs) of a given payload size, and the same
 * load on the ingress in both cases. Each service runs with --max-old-space-size=512 throughout:
 * a restart that ran out of memory would fail the script.
 *
 *   npm run build
 *   node scripts/bench/restart.mjs                        # 100,000 deliveries of 16 KiB (~4 GB of store)
 *   node scripts/bench/restart.mjs --deliveries 2000 --runs 1   # a quick look
 *
 * Options: --deliveries N (100000) --payload-bytes N (16384) --runs N (3: restarts per case; the
 * median is reported) --load-seconds N (5) --connections N (16) --keep (keep the data directory)
 * --out FILE (docs/bench/restart.json; the markdown table goes next to it as restart.md).
 *
 * The history is written straight into the store file (the events the ingress and the dispatcher
 * would write, built by the same domain code, in large transactions: minutes instead of hours),
 * then the read models are rebuilt from it with the operators' `rebuild-read-models` command,
 * whose time is reported too.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import {
  MAINS,
  REPO,
  adminToken,
  embeddedEnv,
  freePort,
  load,
  median,
  msUntilReady,
  rssMiB,
  setUpWebhook,
  sleep,
  startService,
  stopService,
} from './bench-kit.mjs';
import { positiveInteger, readOptions, text } from './command-line.mjs';
import { writeHistory } from './history-writer.mjs';

const options = parseArgs(process.argv.slice(2));
const NODE_FLAGS = ['--max-old-space-size=512'];
const DISPATCHER_READY = 'run-dispatcher following accepted deliveries';
const running = [];

const dataDir = mkdtempSync(join(tmpdir(), 'wts-bench-restart-'));
try {
  await main();
} finally {
  await Promise.all(running.map(stopService));
  if (!options.keep) rmSync(dataDir, { recursive: true, force: true });
  else process.stderr.write(`data kept in ${dataDir}\n`);
}

async function main() {
  const token = adminToken();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = embeddedEnv({ PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN: token, WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' });

  // The configuration, through the real API.
  const setup = startService('ingress', MAINS.ingress, env, { nodeFlags: NODE_FLAGS });
  running.push(setup);
  await msUntilReady(setup, `${baseUrl}/readyz`);
  const hook = await setUpWebhook(baseUrl, token, 'restart');
  await stopService(setup);

  const body = JSON.stringify({ data: { alert: 'disk full', host: 'db-1' } });
  const loadRequest = {
    baseUrl,
    path: hook.path,
    headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
    body,
  };

  log('empty store: restarting each service');
  const empty = await measure(env, baseUrl, loadRequest);

  log(`writing ${options.deliveries} deliveries of ${options.payloadBytes} bytes with their runs into the store`);
  const history = writeHistory(join(dataDir, 'events.sqlite'), hook, options.deliveries, options.payloadBytes, { withRuns: true, log });
  log(`rebuilding the read models from the store (rebuild-read-models)`);
  const rebuild = rebuildReadModels(env);

  log(`${options.deliveries} deliveries: restarting each service`);
  const full = await measure(env, baseUrl, loadRequest);

  const report = {
    measured_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    settings: {
      deliveries: options.deliveries,
      payload_bytes: options.payloadBytes,
      restarts_per_case: options.runs,
      node_flags: NODE_FLAGS,
      load: { connections: options.connections, seconds: options.loadSeconds },
    },
    history,
    rebuild,
    empty,
    full,
    ratios: {
      ingress_ready: round(full.ingress.ready_ms / empty.ingress.ready_ms),
      ingress_rss: round(full.ingress.rss_mib / empty.ingress.rss_mib),
      dispatcher_ready: round(full.dispatcher.ready_ms / empty.dispatcher.ready_ms),
      dispatcher_rss: round(full.dispatcher.rss_mib / empty.dispatcher.rss_mib),
      ingress_rps: round(full.load.rps / empty.load.rps),
      ingress_p99: round(full.load.p99_ms / empty.load.p99_ms),
    },
  };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(options.out.replace(/\.json$/, '.md'), markdown(report));
  process.stdout.write(markdown(report));
}

/** Median restart time and memory of each service over `runs` restarts, then one load run on the ingress. */
async function measure(env, baseUrl, loadRequest) {
  const ingress = [];
  const dispatcher = [];
  for (let run = 0; run < options.runs; run += 1) {
    const service = startService('ingress', MAINS.ingress, env, { nodeFlags: NODE_FLAGS });
    running.push(service);
    const readyMs = await msUntilReady(service, `${baseUrl}/readyz`);
    await sleep(1000); // settled: the projector has caught up with the little that is new
    ingress.push({ ready_ms: readyMs, rss_mib: rssMiB(service.child.pid) });
    await stopService(service);

    const worker = startService('run-dispatcher', MAINS.dispatcher, env, { nodeFlags: NODE_FLAGS, readyLine: DISPATCHER_READY });
    running.push(worker);
    const workerReady = await Promise.race([
      worker.lineSeen,
      worker.exited.then(() => Promise.reject(new Error(`dispatcher exited:\n${worker.output()}`))),
    ]);
    await sleep(1000);
    dispatcher.push({ ready_ms: workerReady, rss_mib: rssMiB(worker.child.pid) });
    await stopService(worker);
  }
  const service = startService('ingress', MAINS.ingress, env, { nodeFlags: NODE_FLAGS });
  running.push(service);
  await msUntilReady(service, `${baseUrl}/readyz`);
  await load({ ...loadRequest, connections: options.connections, seconds: 1 }); // warm-up
  const loadResult = await load({ ...loadRequest, connections: options.connections, seconds: options.loadSeconds });
  const rssAfterLoad = rssMiB(service.child.pid);
  await stopService(service);
  return {
    ingress: summarise(ingress),
    dispatcher: summarise(dispatcher),
    load: { ...loadResult, rss_after_mib: round(rssAfterLoad) },
    store_bytes: statSync(join(env.DATA_DIR, 'events.sqlite')).size,
  };
}

function summarise(samples) {
  return {
    ready_ms: round(median(samples.map((s) => s.ready_ms))),
    rss_mib: round(median(samples.map((s) => s.rss_mib))),
    samples: samples.map((s) => ({ ready_ms: round(s.ready_ms), rss_mib: round(s.rss_mib) })),
  };
}

function rebuildReadModels(env) {
  const started = performance.now();
  const result = spawnSync(process.execPath, [MAINS.cli, 'rebuild-read-models', '--yes', '--json'], {
    env,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`rebuild-read-models failed (${result.status}):\n${result.stderr}`);
  const summary = JSON.parse(result.stdout);
  const seconds = (performance.now() - started) / 1000;
  return { seconds: round(seconds), events: summary.events, events_per_second: Math.round(summary.events / seconds), rows: summary.rows };
}

function markdown(report) {
  const { empty, full, ratios, settings } = report;
  const rows = [
    ['ingress: restart to ready (ms)', empty.ingress.ready_ms, full.ingress.ready_ms, ratios.ingress_ready],
    ['ingress: RSS when ready (MiB)', empty.ingress.rss_mib, full.ingress.rss_mib, ratios.ingress_rss],
    ['run-dispatcher: restart to ready (ms)', empty.dispatcher.ready_ms, full.dispatcher.ready_ms, ratios.dispatcher_ready],
    ['run-dispatcher: RSS when ready (MiB)', empty.dispatcher.rss_mib, full.dispatcher.rss_mib, ratios.dispatcher_rss],
    [
      `ingress under load: requests/s (${settings.load.connections} connections, ${settings.load.seconds} s)`,
      round(empty.load.rps),
      round(full.load.rps),
      ratios.ingress_rps,
    ],
    ['ingress under load: p99 (ms)', empty.load.p99_ms, full.load.p99_ms, ratios.ingress_p99],
    ['event store file (MiB)', round(empty.store_bytes / 2 ** 20), round(full.store_bytes / 2 ** 20), ''],
  ];
  return [
    `| ${report.measured_at.slice(0, 10)} | empty store | ${settings.deliveries.toLocaleString('en')} deliveries of ${settings.payload_bytes / 1024} KiB | ratio |`,
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `History written in ${report.history.seconds} s; read models rebuilt from it in ${report.rebuild.seconds} s (${report.rebuild.events_per_second.toLocaleString('en')} events/s). ` +
      `Medians of ${settings.restarts_per_case} restarts, each service at ${settings.node_flags.join(' ')}; ${report.machine.cpus} × ${report.machine.cpu}, Node ${report.machine.node}.`,
    '',
  ].join('\n');
}

function parseArgs(argv) {
  const parsed = readOptions(
    argv,
    {
      deliveries: 100_000,
      payloadBytes: 16_384,
      runs: 3,
      loadSeconds: 5,
      connections: 16,
      keep: false,
      out: join(REPO, 'docs', 'bench', 'restart.json'),
    },
    {
      deliveries: positiveInteger,
      payloadBytes: positiveInteger,
      runs: positiveInteger,
      loadSeconds: positiveInteger,
      connections: positiveInteger,
      keep: true,
      out: text,
    },
  );
  if (parsed.deliveries > 1_000_000) throw new Error('--deliveries is at most 1,000,000');
  return parsed;
}

function round(value) {
  return Math.round(value * 100) / 100;
}

function log(message) {
  process.stderr.write(`[restart] ${message}\n`);
}
