/* global setTimeout, performance */
/**
 * Erasure speed (issue 31): how fast an erasure by `contains` goes through a store of many
 * deliveries, and what it does to the ingress's 202s meanwhile.
 *
 * 1. Sets up a webhook through the API on a fresh DATA_DIR, stops the services and seeds
 *    `--deliveries` deliveries through the store API (scripts/bench/erasure-seed.mjs), `--needles`
 *    of them containing a data subject's email.
 * 2. Times a `contains` scan over all of them through the payload store
 *    (store.payloads().scan(needle, { cursor, limit: 10000 }) in a loop), twice.
 * 3. Starts both services on that DATA_DIR and, `--rounds` times, runs a constant 202 load alone,
 *    then the same load while an erasure by `contains` (POST /admin/erasures as admin, polled
 *    until done) runs: p50/p99 of the 202s, the erasure's wall time and payloads scanned per second.
 *
 * Writes docs/bench/erasure-speed.json, .md and .svg.
 *
 *   npm run bench:erasure
 *   npm run bench:erasure -- --deliveries 100000 --seconds 10
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { REPO, admin, load, setUpWebhook, sleep, startStack, stopService } from './bench-kit.mjs';
import { seedDeliveries } from './erasure-seed.mjs';
import { erasureChart, erasureMarkdown } from './erasure-report.mjs';

const require = createRequire(import.meta.url);
const { SqliteEventStore } = require(join(REPO, 'dist/libs/event-store/src'));

function parseArgs(argv) {
  const options = {
    deliveries: 1_000_000,
    needles: 20,
    connections: 16,
    seconds: 20,
    rate: 500,
    rounds: 2,
    erasureDelayMs: 2000,
    out: join(REPO, 'docs', 'bench'),
  };
  const numeric = {
    '--deliveries': 'deliveries',
    '--needles': 'needles',
    '--connections': 'connections',
    '--seconds': 'seconds',
    '--rate': 'rate',
    '--rounds': 'rounds',
  };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--out') options.out = argv[i + 1];
    else if (numeric[argv[i]]) options[numeric[argv[i]]] = Number(argv[i + 1]);
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const log = (line) => console.error(line);

/** The whole payload store scanned for `needle`, a window of 10,000 at a time, as the erasure job does. */
async function timeScan(storeFile, needle) {
  const store = SqliteEventStore.open(storeFile);
  try {
    const started = performance.now();
    let cursor;
    let scanned = 0;
    let windows = 0;
    const matches = [];
    do {
      const page = await store.payloads().scan(needle, { ...(cursor ? { cursor } : {}), limit: 10_000 });
      scanned += page.scanned;
      matches.push(...page.matches);
      windows += 1;
      cursor = page.cursor;
    } while (cursor);
    const seconds = (performance.now() - started) / 1000;
    return { scanned, matches: matches.length, windows, seconds: round(seconds, 3), scanned_per_second: Math.round(scanned / seconds) };
  } finally {
    await store.close();
  }
}

/** The erasure's own record in the store: its windows' times and counts (ErasureProgressed, ErasureFinished). */
function erasureRecord(storeFile, erasureId) {
  const db = new Database(storeFile, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT type, data, created_at FROM events WHERE stream_id = ? ORDER BY revision')
      .all(`erasure-${erasureId}`)
      .map((row) => ({ type: row.type, data: JSON.parse(row.data), at: Number(row.created_at) }));
    const windows = rows.filter((row) => row.type === 'ErasureProgressed');
    const finished = rows.find((row) => row.type === 'ErasureFinished');
    const first = windows[0];
    const last = windows.at(-1);
    const scanSeconds = (last.at - first.at) / 1000;
    return {
      windows: windows.length,
      scanned: last.data.scanned,
      erased: last.data.erased,
      // Between the first and the last window's record: the scan as the dispatcher runs it, without the runner's pick-up delay.
      scan_seconds: round(scanSeconds, 3),
      scanned_per_second: scanSeconds > 0 ? Math.round((last.data.scanned - first.data.scanned) / scanSeconds) : null,
      // After the last window: the search string removed, the reclaim (WAL truncated), ErasureFinished.
      finishing_seconds: finished ? round((finished.at - last.at) / 1000, 3) : null,
      status: finished?.data.status ?? null,
    };
  } finally {
    db.close();
  }
}

/** POST /admin/erasures { contains }, then GET every 100 ms until it is done (or failed). */
async function erase(stack, needle) {
  const started = performance.now();
  const requested = await admin(stack.baseUrl, stack.token, 'POST', '/admin/erasures', { contains: needle });
  let view = requested;
  while (view.status === 'running' && performance.now() - started < 600_000) {
    await sleep(100);
    view = await admin(stack.baseUrl, stack.token, 'GET', `/admin/erasures/${requested.erasure_id}`);
  }
  const wallSeconds = (performance.now() - started) / 1000;
  return {
    erasure_id: requested.erasure_id,
    status: view.status,
    selected: view.selected,
    erased: view.erased,
    wall_seconds: round(wallSeconds, 2),
    requested_to_finished_seconds: view.finished_at
      ? round((Date.parse(view.finished_at) - Date.parse(view.requested_at)) / 1000, 2)
      : null,
    ...erasureRecord(stack.storeFile, requested.erasure_id),
  };
}

const loadFigures = (result) => ({
  requests: result.requests,
  rps: Math.round(result.rps),
  p50_ms: result.p50_ms,
  p99_ms: result.p99_ms,
  p999_ms: result.p999_ms,
  unexpected_status: result.unexpected_status,
  errors: result.errors,
});

const options = parseArgs(process.argv.slice(2));
const needle = `jane.doe+${randomBytes(4).toString('hex')}@example.com`;
const stack = await startStack({ label: 'erasure' });
let report;
try {
  const hook = await setUpWebhook(stack.baseUrl, stack.token, 'erasure');
  await Promise.all([stack.ingress, stack.dispatcher].map(stopService));
  log(`seeding ${options.deliveries} deliveries (${options.needles} containing the search string) into ${stack.dataDir}`);
  const seeded = await seedDeliveries(stack.dataDir, hook, { count: options.deliveries, needles: options.needles, needle, log });
  const storeBytes = statSync(stack.storeFile).size;
  log(`seeded in ${seeded.seconds} s; store ${round(storeBytes / 1048576)} MiB. Scanning the payload store for the search string`);
  const scans = [await timeScan(stack.storeFile, needle), await timeScan(stack.storeFile, needle)];
  log(`scans: ${scans.map((s) => `${s.scanned} in ${s.seconds} s (${s.scanned_per_second}/s, ${s.matches} matches)`).join('; ')}`);

  await stack.startIngress();
  await stack.startDispatcher();
  const request = {
    baseUrl: stack.baseUrl,
    path: hook.path,
    headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: { alert: 'disk full', host: 'db-1', note: 'erasure bench' } }),
    connections: options.connections,
    seconds: options.seconds,
    overallRate: options.rate,
  };
  await load({ ...request, seconds: 5 }); // warm-up, not counted
  const rounds = [];
  for (let index = 0; index < options.rounds; index += 1) {
    const alone = loadFigures(await load(request));
    log(`round ${index + 1} alone: ${alone.rps}/s p50 ${alone.p50_ms} ms p99 ${alone.p99_ms} ms`);
    const during = load(request);
    await sleep(options.erasureDelayMs);
    const erasure = await erase(stack, needle);
    const withErasure = loadFigures(await during);
    log(
      `round ${index + 1} during erasure: ${withErasure.rps}/s p50 ${withErasure.p50_ms} ms p99 ${withErasure.p99_ms} ms; erasure ${erasure.status} in ${erasure.wall_seconds} s, ${erasure.scanned} scanned at ${erasure.scanned_per_second}/s, ${erasure.erased} erased`,
    );
    rounds.push({ alone, during_erasure: withErasure, erasure });
  }
  report = {
    measured_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    settings: {
      deliveries: options.deliveries,
      needles: options.needles,
      needle_shape: 'jane.doe+<8 hex>@example.com',
      load: { connections: options.connections, seconds: options.seconds, offered_rps: options.rate },
      erasure_starts_after_ms: options.erasureDelayMs,
    },
    seeded: { ...seeded, store_mib: round(storeBytes / 1048576) },
    scans,
    rounds,
  };
} finally {
  await stack.stop();
}
mkdirSync(options.out, { recursive: true });
writeFileSync(join(options.out, 'erasure-speed.json'), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(options.out, 'erasure-speed.svg'), erasureChart(report));
writeFileSync(join(options.out, 'erasure-speed.md'), erasureMarkdown(report));
console.log(JSON.stringify({ scans: report.scans, rounds: report.rounds }, null, 2));
const passed = report.rounds.every(
  (r) => r.erasure.status === 'done' && r.alone.unexpected_status === 0 && r.during_erasure.unexpected_status === 0,
);
setTimeout(() => process.exit(passed ? 0 : 1), 10);
