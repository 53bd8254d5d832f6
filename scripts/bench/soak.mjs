/* global setTimeout */
/**
 * Soak: the embedded default, then the Kafka shape (ingress + relay → test broker → dispatcher
 * consumer), each for `--minutes` at half the maximum load measured on that shape just before
 * (a 10 s closed-loop burst of 32 connections). The load runs in windows of `--window` seconds
 * at that fixed offered rate; after each window: HTTP p99 and rate of the window, RSS of both
 * services (/proc), their V8 heap and active handles (scripts/bench/soak-probe.cjs, preloaded),
 * the store's size on disk and the deliveries still without a run. At the end every 202 must be
 * a run. Writes docs/soak/latest.json and docs/soak/soak.svg (into `--out`).
 *
 * `--rate N` soaks at N/s instead (no maximum burst first); `--payload-retention-seconds N` runs
 * the services with PAYLOAD_RETENTION_SECONDS=N. Each window also records the payload part of the
 * store (scripts/bench/soak-store.mjs). scripts/bench/retention-soak.mjs runs it with and without.
 *
 *   npm run soak -- --minutes 30
 *   npm run soak -- --minutes 3 --only embedded
 *   npm run soak -- --minutes 5 --only embedded --rate 300 --payload-retention-seconds 60 --out /tmp/soak
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, load, rssMiB, setUpWebhook, startKafkaBroker, startStack, sleep } from './bench-kit.mjs';
import { soakChart } from './soak-chart.mjs';
import { storeState } from './soak-store.mjs';

const PROBE = join(REPO, 'scripts', 'bench', 'soak-probe.cjs');
const BODY = JSON.stringify({ data: { order: 42, items: ['a', 'b'], note: 'soak' } });

function parseArgs(argv) {
  const options = {
    minutes: 30,
    window: 15,
    only: undefined,
    out: join(REPO, 'docs', 'soak'),
    rate: undefined,
    payloadRetentionSeconds: undefined,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (argv[i] === '--minutes') options.minutes = Number(value);
    else if (argv[i] === '--window') options.window = Number(value);
    else if (argv[i] === '--only') options.only = value;
    else if (argv[i] === '--out') options.out = value;
    else if (argv[i] === '--rate') options.rate = Number(value);
    else if (argv[i] === '--payload-retention-seconds') options.payloadRetentionSeconds = Number(value);
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

const round1 = (value) => Math.round(value * 10) / 10;
const median = (values) => {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)];
};

function lastProbe(file) {
  if (!existsSync(file)) return {};
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  return JSON.parse(lines[lines.length - 1] || '{}');
}

async function soakShape(shape, options, log) {
  const broker = shape === 'kafka' ? startKafkaBroker() : undefined;
  const probeDir = join(tmpdir(), `wts-soak-probe-${process.pid}-${shape}`);
  mkdirSync(probeDir, { recursive: true });
  const probeFile = (name) => join(probeDir, `${name}.jsonl`);
  const stack = await startStack({
    label: `soak-${shape}`,
    extraEnv: {
      ...(broker ? { KAFKA_BROKERS: broker.brokers } : {}),
      ...(options.payloadRetentionSeconds ? { PAYLOAD_RETENTION_SECONDS: String(options.payloadRetentionSeconds) } : {}),
      SOAK_PROBE_INTERVAL_MS: '2000',
    },
    nodeFlags: ['--require', PROBE],
    perService: { ingress: { SOAK_PROBE_FILE: probeFile('ingress') }, dispatcher: { SOAK_PROBE_FILE: probeFile('dispatcher') } },
  });
  try {
    const hook = await setUpWebhook(stack.baseUrl, stack.token, `soak-${shape}`);
    const request = {
      baseUrl: stack.baseUrl,
      path: hook.path,
      headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
      body: BODY,
    };
    // A fixed --rate skips the maximum burst (whose backlog would show in the store's first minutes).
    const max = options.rate ? undefined : await load({ ...request, connections: 32, seconds: 10 });
    const rate = options.rate ?? Math.max(1, Math.floor(max.rps / 2));
    log(`${shape}: ${max ? `measured maximum ${Math.round(max.rps)}/s, ` : ''}soaking at ${rate}/s for ${options.minutes} min`);
    // Let the burst's backlog drain before the clock starts.
    for (let waited = 0; storeState(stack.storeFile).without_run > 0 && waited < 120_000; waited += 500) await sleep(500);

    const points = [];
    const started = Date.now();
    let requests = 0;
    let unexpected = 0;
    let errors = 0;
    while (Date.now() - started < options.minutes * 60_000) {
      const result = await load({ ...request, connections: 16, seconds: options.window, overallRate: rate });
      requests += result.requests;
      unexpected += result.unexpected_status;
      errors += result.errors;
      const ingressProbe = lastProbe(probeFile('ingress'));
      const dispatcherProbe = lastProbe(probeFile('dispatcher'));
      const store = storeState(stack.storeFile);
      const point = {
        minute: round1((Date.now() - started) / 60_000),
        at: new Date().toISOString(),
        rps: Math.round(result.rps),
        p99_ms: result.p99_ms,
        ingress_rss_mib: round1(rssMiB(stack.ingress.child.pid)),
        dispatcher_rss_mib: round1(rssMiB(stack.dispatcher.child.pid)),
        ingress_heap_mib: round1(ingressProbe.heap_used_mib ?? NaN),
        dispatcher_heap_mib: round1(dispatcherProbe.heap_used_mib ?? NaN),
        ingress_handles: ingressProbe.handles,
        dispatcher_handles: dispatcherProbe.handles,
        store_mib: store.store_mib,
        store_bytes: store.store_bytes,
        wal_bytes: store.wal_bytes,
        readmodels_bytes: store.readmodels_bytes,
        deliveries: store.deliveries,
        ...(store.payloads ?? {}),
        deliveries_without_run: store.without_run,
        unexpected_status: result.unexpected_status,
        errors: result.errors,
      };
      points.push(point);
      log(
        `${shape} ${point.minute} min: ${point.rps}/s p99 ${point.p99_ms} ms, RSS ${point.ingress_rss_mib}/${point.dispatcher_rss_mib} MiB, heap ${point.ingress_heap_mib}/${point.dispatcher_heap_mib} MiB, handles ${point.ingress_handles}/${point.dispatcher_handles}, store ${point.store_mib} MiB (${point.kept_payloads ?? '-'} payloads kept, ${point.removed_payloads ?? '-'} removed), backlog ${point.deliveries_without_run}`,
      );
    }
    let store = storeState(stack.storeFile);
    const drainStart = Date.now();
    while (store.without_run > 0 && Date.now() - drainStart < 180_000) {
      await sleep(500);
      store = storeState(stack.storeFile);
    }
    const third = Math.max(1, Math.floor(points.length / 3));
    const firstThird = points.slice(0, third);
    const lastThird = points.slice(-third);
    const drift = (pick) => ({ first_third_median: median(firstThird.map(pick)), last_third_median: median(lastThird.map(pick)) });
    return {
      shape,
      measured_max_rps: max ? Math.round(max.rps) : null,
      payload_retention_seconds: options.payloadRetentionSeconds ?? null,
      offered_rps: rate,
      minutes: options.minutes,
      window_seconds: options.window,
      requests,
      unexpected_status: unexpected,
      errors,
      deliveries_accepted: store.deliveries,
      runs_created: store.runs,
      deliveries_without_run: store.without_run,
      every_202_a_run: store.without_run === 0 && store.runs === store.deliveries,
      drift: {
        ingress_rss_mib: drift((p) => p.ingress_rss_mib),
        dispatcher_rss_mib: drift((p) => p.dispatcher_rss_mib),
        ingress_heap_mib: drift((p) => p.ingress_heap_mib),
        dispatcher_heap_mib: drift((p) => p.dispatcher_heap_mib),
        ingress_handles: drift((p) => p.ingress_handles),
        dispatcher_handles: drift((p) => p.dispatcher_handles),
        p99_ms: drift((p) => p.p99_ms),
      },
      points,
    };
  } finally {
    await stack.stop();
    broker?.clean();
    rmSync(probeDir, { recursive: true, force: true });
  }
}

const options = parseArgs(process.argv.slice(2));
const log = (line) => console.error(line);
const shapes = [];
for (const shape of ['embedded', 'kafka']) if (!options.only || options.only === shape) shapes.push(await soakShape(shape, options, log));
const report = {
  measured_at: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
  minutes_per_shape: options.minutes,
  shapes,
};
mkdirSync(options.out, { recursive: true });
writeFileSync(join(options.out, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(options.out, 'soak.svg'), soakChart(report));
console.log(
  JSON.stringify(
    report.shapes.map((shape) => Object.fromEntries(Object.entries(shape).filter(([key]) => key !== 'points'))),
    null,
    2,
  ),
);
const passed = shapes.every((shape) => shape.every_202_a_run && shape.unexpected_status === 0);
setTimeout(() => process.exit(passed ? 0 : 1), 10);
