#!/usr/bin/env node
/* global Buffer */
/**
 * `npm run bench`: the ingress against a bare Fastify server, side by side in one run with the
 * same load generator (autocannon) and body, on 127.0.0.1; a webhook with and without routine
 * rules (rules-cost.mjs, --rounds N pairs); then POST → run created with the dispatcher running,
 * the dispatcher's runs/s, and — with a broker (KAFKA_BROKERS, or the test broker this script
 * starts with --kafka) — the Kafka shape. Writes docs/bench/latest.json, docs/bench/latest.md and
 * docs/bench/latency.svg. A benchmark, not a timed test: figures drift with whatever else the
 * machine runs, so ratios measured in the same run are what to compare.
 *
 *   npm run bench                        # embedded default (+ Kafka when KAFKA_BROKERS is set)
 *   npm run bench -- --kafka             # also starts the test broker for the Kafka shape
 *   npm run bench -- --seconds 5 --quick # shorter
 *
 * Options: --seconds N (10: each load run) --connections 1,16,64 --dispatch N (50000: deliveries
 * the dispatcher drains) --kafka --no-kafka --out DIR (docs/bench); --only dispatcher | e2e | rules
 * runs that measurement alone and prints it, writing nothing (e2e takes --max-rps N, --fractions 0.25,0.5);
 * --render redraws latest.md and latency.svg from latest.json.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { BODY, MAINS, REPO, cpuSeconds, load, setUpWebhook, startService, startStack, stopService, sleep } from './bench-kit.mjs';
import { startKafkaBroker } from './kafka-broker.mjs';
import { markdown, round, slim } from './bench-report.mjs';
import { latencyChart } from './latency-chart.mjs';
import { rulesCost } from './rules-cost.mjs';
import { writeHistory } from './history-writer.mjs';
import { countRuns, deliveryToRunLatencies, percentile, runsPerSecond } from './store-timing.mjs';

const options = parseArgs(process.argv.slice(2));
const running = [];
const temporary = [];
let broker;

try {
  await main();
} finally {
  await Promise.all(running.map(stopService));
  broker?.clean();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
}

async function main() {
  if (options.render) {
    // Rewrites the markdown and the chart from an existing latest.json (after a change to how they are drawn).
    const saved = JSON.parse(readFileSync(join(options.out, 'latest.json'), 'utf8'));
    writeFileSync(join(options.out, 'latest.md'), markdown(saved));
    writeFileSync(join(options.out, 'latency.svg'), latencyChart(saved));
    return;
  }
  const report = {
    measured_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    body_bytes: Buffer.byteLength(BODY),
    seconds_per_run: options.seconds,
  };
  if (options.only === 'e2e') {
    if (!options.maxRps) throw new Error('--only e2e needs --max-rps N (the maximum the fractions are taken of)');
    const result = await endToEnd('embedded', {}, options.maxRps);
    process.stdout.write(
      `${JSON.stringify(result.points.map(({ offered_rps, http_p99_ms, e2e_p50_ms, e2e_p99_ms }) => ({ offered_rps, http_p99_ms, e2e_p50_ms, e2e_p99_ms })))}\n`,
    );
    return;
  }
  const rulesOptions = { seconds: Math.max(2, Math.round(options.seconds / 2)), rounds: options.rounds ?? 4, log };
  if (options.only === 'rules') return void process.stdout.write(`${JSON.stringify(await rulesCost(rulesOptions), null, 2)}\n`);
  if (options.only === 'dispatcher') {
    report.dispatcher = await dispatcherThroughput();
    process.stdout.write(`${JSON.stringify(report.dispatcher)}\n`);
    return;
  }
  log('HTTP: bare Fastify and the ingress, interleaved, at each number of connections');
  report.http = await httpComparison();
  const at64 = report.http.find((row) => row.connections === 64) ?? report.http.at(-1);
  Object.assign(report, {
    connections: report.http.map((row) => row.connections),
    fastify_rps: at64.fastify.rps,
    ingress_rps: at64.ingress.rps,
    ratio: round(at64.ingress.rps / at64.fastify.rps),
    p50_ms: at64.ingress.p50_ms,
    p99_ms: at64.ingress.p99_ms,
    p999_ms: at64.ingress.p999_ms,
  });
  report.rules = await rulesCost(rulesOptions);
  log('POST → run created, embedded default, at fractions of the maximum');
  report.embedded = await endToEnd('embedded', {}, at64.ingress.rps);
  report.e2e_p99_ms = report.embedded.at_half_max.e2e_p99_ms;
  report.e2e_p50_ms = report.embedded.at_half_max.e2e_p50_ms;
  log(`dispatcher: ${options.dispatch} waiting deliveries drained`);
  report.dispatcher = await dispatcherThroughput();
  report.dispatcher_runs_per_s = report.dispatcher.runs_per_s;
  const brokers = process.env.KAFKA_BROKERS ?? (options.kafka ? (broker = startKafkaBroker()).brokers : undefined);
  if (brokers && options.kafka !== false) {
    log(`Kafka shape through ${brokers}`);
    report.kafka = await kafkaShape(brokers);
  } else {
    report.kafka = null;
    log('Kafka shape skipped: no KAFKA_BROKERS (run with --kafka to start the test broker)');
  }
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(options.out, 'latest.md'), markdown(report));
  writeFileSync(join(options.out, 'latency.svg'), latencyChart(report));
  process.stdout.write(markdown(report));
}

// ------------------------------------------------------------------ HTTP

async function httpComparison() {
  const rows = [];
  const ingress = await startEmbedded({ withDispatcher: false });
  const bare = await startBare();
  try {
    const request = deliveryRequest(ingress);
    for (const connections of options.connections) {
      await load({ baseUrl: bare.baseUrl, ...request, connections, seconds: 2 });
      const fastify = await load({ baseUrl: bare.baseUrl, ...request, connections, seconds: options.seconds });
      await load({ baseUrl: ingress.baseUrl, ...request, connections, seconds: 2 });
      const cpuBefore = cpuSeconds(ingress.process.child.pid);
      const measured = await load({ baseUrl: ingress.baseUrl, ...request, connections, seconds: options.seconds });
      measured.cpu_ms_per_request = round(((cpuSeconds(ingress.process.child.pid) - cpuBefore) * 1000) / Math.max(1, measured.requests));
      rows.push({ connections, fastify: slim(fastify), ingress: slim(measured), ratio: round(measured.rps / fastify.rps) });
      log(
        `  ${connections} connections: Fastify ${Math.round(fastify.rps)}/s, ingress ${Math.round(measured.rps)}/s (${round(measured.rps / fastify.rps)}), p99 ${measured.p99_ms} ms`,
      );
    }
  } finally {
    await stopService(bare.process);
    await stopService(ingress.process);
  }
  return rows;
}

// ------------------------------------------------------------------ end to end

/** At offered rates from 10 % to 100 % of `maxRps`: HTTP p99 and POST → run created. */
async function endToEnd(shape, extraEnv, maxRps) {
  const services = await startEmbedded({ withDispatcher: true, extraEnv });
  const points = [];
  try {
    for (const fraction of options.fractions) {
      const rate = Math.max(10, Math.round(maxRps * fraction));
      const point = await offeredRatePoint(services, rate);
      points.push(point);
      log(
        `  ${shape} ${rate}/s offered: ${Math.round(point.achieved_rps)}/s, HTTP p99 ${point.http_p99_ms} ms, POST → run p50 ${point.e2e_p50_ms} / p99 ${point.e2e_p99_ms} ms, ${point.runs_missing} runs missing`,
      );
    }
  } finally {
    await Promise.all([stopService(services.process), stopService(services.dispatcher)]);
  }
  const half = points.reduce((best, point) =>
    Math.abs(point.offered_rps - maxRps / 2) < Math.abs(best.offered_rps - maxRps / 2) ? point : best,
  );
  return { max_rps: round(maxRps), points, at_half_max: half };
}

/** Load offered at `rate` deliveries/s for the configured seconds, then until its runs exist: HTTP and POST → run latencies. */
async function offeredRatePoint(services, rate) {
  const from = Date.now();
  const result = await load({
    baseUrl: services.baseUrl,
    ...deliveryRequest(services),
    connections: 64,
    seconds: options.seconds,
    overallRate: rate,
  });
  const to = Date.now();
  const drained = await waitForRuns(services.storeFile, from, to);
  const lat = deliveryToRunLatencies(services.storeFile, from, to);
  return {
    offered_rps: rate,
    achieved_rps: round(result.rps),
    http_p50_ms: result.p50_ms,
    http_p99_ms: result.p99_ms,
    e2e_p50_ms: percentile(lat.latencies, 50),
    e2e_p99_ms: percentile(lat.latencies, 99),
    deliveries: lat.deliveries,
    runs_missing: lat.missing,
    drained_after_ms: drained,
    unexpected_status: result.unexpected_status,
  };
}

/** Until every delivery accepted in the window has its run (at most 30 s); the time it took after the window. */
async function waitForRuns(storeFile, from, to) {
  const started = Date.now();
  while (Date.now() - started < 30_000) {
    if (deliveryToRunLatencies(storeFile, from, to).missing === 0) return Date.now() - started;
    await sleep(50);
  }
  return null;
}

// ------------------------------------------------------------------ dispatcher

/** N deliveries waiting in a store, then the dispatcher started: runs per second from its first run to its last. */
async function dispatcherThroughput() {
  const services = await startEmbedded({ withDispatcher: false });
  await stopService(services.process);
  const written = writeHistory(services.storeFile, services.hook, options.dispatch, 200, { withRuns: false });
  const dispatcher = startService('run-dispatcher', MAINS.dispatcher, services.env, { readyLine: 'run-dispatcher following' });
  running.push(dispatcher);
  const started = Date.now();
  while (countRuns(services.storeFile) < options.dispatch && Date.now() - started < 300_000) await sleep(100);
  await stopService(dispatcher);
  const rate = runsPerSecond(services.storeFile);
  return { deliveries: written.deliveries, runs: rate.runs, seconds: round(rate.seconds), runs_per_s: rate.perSecond };
}

// ------------------------------------------------------------------ Kafka

/** The Kafka shape: ingress + relay → broker → dispatcher consumer, at fixed offered rates. */
async function kafkaShape(brokers) {
  const points = [];
  const services = await startEmbedded({ withDispatcher: true, extraEnv: { KAFKA_BROKERS: brokers } });
  try {
    for (const rate of options.kafkaRates) {
      const point = await offeredRatePoint(services, rate);
      const drained = point.drained_after_ms;
      points.push({ ...point, sustained: drained !== null && drained < 2000 });
      log(
        `  Kafka ${rate}/s offered: ${Math.round(point.achieved_rps)}/s, POST → run p50 ${point.e2e_p50_ms} / p99 ${point.e2e_p99_ms} ms, drained ${drained} ms after`,
      );
    }
  } finally {
    await Promise.all([stopService(services.process), stopService(services.dispatcher)]);
  }
  const kept = points.filter((point) => point.sustained && point.runs_missing === 0 && point.achieved_rps >= point.offered_rps * 0.95);
  return { brokers, points, sustained_rps: kept.length > 0 ? Math.max(...kept.map((point) => point.achieved_rps)) : 0 };
}

// ------------------------------------------------------------------ services

async function startEmbedded({ withDispatcher, extraEnv = {} }) {
  const stack = await startStack({ withDispatcher, extraEnv, label: 'bench' });
  temporary.push(stack.dataDir);
  running.push(...[stack.ingress, stack.dispatcher].filter(Boolean));
  const hook = await setUpWebhook(stack.baseUrl, stack.token);
  return { process: stack.ingress, dispatcher: stack.dispatcher, baseUrl: stack.baseUrl, hook, env: stack.env, storeFile: stack.storeFile };
}

/** The POST of one delivery to the started services' webhook, as load() sends it. */
function deliveryRequest(services) {
  return {
    path: services.hook.path,
    headers: { authorization: `Bearer ${services.hook.secret}`, 'content-type': 'application/json' },
    body: BODY,
  };
}

async function startBare() {
  const service = startService('bare-fastify', join(REPO, 'scripts/bench/bare-fastify.mjs'), process.env);
  running.push(service);
  const port = await new Promise((resolvePort) => service.child.stdout.once('data', (chunk) => resolvePort(Number(String(chunk).trim()))));
  return { process: service, baseUrl: `http://127.0.0.1:${port}` };
}

function parseArgs(argv) {
  const parsed = {
    seconds: 10,
    connections: [1, 16, 64],
    dispatch: 50_000,
    kafka: undefined,
    out: join(REPO, 'docs', 'bench'),
    fractions: [0.1, 0.25, 0.5, 0.75, 1],
    kafkaRates: [250, 500, 1000, 2000, 3000],
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = () =>
      argv[++i] ??
      (() => {
        throw new Error(`${flag} needs a value`);
      })();
    if (flag === '--seconds') parsed.seconds = Number(value());
    else if (flag === '--connections') parsed.connections = value().split(',').map(Number);
    else if (flag === '--dispatch') parsed.dispatch = Number(value());
    else if (flag === '--rounds') parsed.rounds = Number(value());
    else if (flag === '--kafka') parsed.kafka = true;
    else if (flag === '--no-kafka') parsed.kafka = false;
    else if (flag === '--out') parsed.out = value();
    else if (flag === '--only') parsed.only = value();
    else if (flag === '--render') parsed.render = true;
    else if (flag === '--max-rps') parsed.maxRps = Number(value());
    else if (flag === '--fractions') parsed.fractions = value().split(',').map(Number);
    else if (flag === '--quick')
      Object.assign(parsed, { seconds: 4, dispatch: 10_000, fractions: [0.25, 0.5, 1], kafkaRates: [500, 1000, 2000] });
    else throw new Error(`unknown option ${flag}`);
  }
  for (const n of [parsed.seconds, parsed.dispatch, parsed.rounds ?? 1, ...parsed.connections])
    if (!Number.isSafeInteger(n) || n < 1) throw new Error('--seconds, --connections, --dispatch and --rounds take positive integers');
  return parsed;
}

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}
