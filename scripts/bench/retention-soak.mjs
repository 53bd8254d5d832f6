/* global Buffer */
/**
 * Does the store level off with payload retention? Runs the embedded soak (scripts/bench/soak.mjs)
 * twice in one session at the same fixed rate and length: with PAYLOAD_RETENTION_SECONDS=N and
 * with the default retention (30 days), in the order asked. Each run records the store's size and
 * its payload part after every window. Writes docs/soak/retention.json, .md and .svg: the store
 * size of both runs against time, and the growth slope (bytes per delivery) over the last windows.
 *
 *   node scripts/bench/retention-soak.mjs --minutes 5 --rate 300
 *   node scripts/bench/retention-soak.mjs --minutes 8 --rate 300 --order retention-last
 *   node scripts/bench/retention-soak.mjs --report-only docs/soak/retention.json --last 8
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './bench-kit.mjs';
import { readOptions, text } from './command-line.mjs';
import { soakChart } from './soak-chart.mjs';
import { retentionMarkdown, summary } from './retention-soak-report.mjs';

function parseArgs(argv) {
  const options = readOptions(
    argv,
    { minutes: 5, rate: 300, window: 15, retention: 60, last: 4, order: 'retention-first', out: join(REPO, 'docs', 'soak') },
    { minutes: Number, rate: Number, window: Number, retention: Number, last: Number, order: text, out: text, reportOnly: text },
  );
  if (!['retention-first', 'retention-last'].includes(options.order)) throw new Error('--order is retention-first or retention-last');
  return options;
}

/** One embedded soak as a child process (bounded by --minutes); its report's embedded shape, renamed. */
function soak(options, name, retention, scratch) {
  const out = join(scratch, name.replace(/\W+/g, '-'));
  const args = [
    '--only',
    'embedded',
    '--minutes',
    String(options.minutes),
    '--window',
    String(options.window),
    '--rate',
    String(options.rate),
  ];
  if (retention) args.push('--payload-retention-seconds', String(retention));
  console.error(`${name}: soak.mjs ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [join(REPO, 'scripts', 'bench', 'soak.mjs'), ...args, '--out', out], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const report = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8'));
  const shape = report.shapes.find((s) => s.shape === 'embedded');
  return { ...shape, shape: name, soak_exit: result.status, machine: report.machine, started_at: shape.points[0]?.at };
}

/** The soak's body (scripts/bench/soak.mjs BODY), in bytes. */
const SOAK_BODY_BYTES = Buffer.byteLength(JSON.stringify({ data: { order: 42, items: ['a', 'b'], note: 'soak' } }));
const mib = (bytes) => (typeof bytes === 'number' ? bytes / 1048576 : undefined);
const PANELS = [
  { title: 'events.sqlite + WAL (MiB)', series: () => [['', (p) => p.store_mib]] },
  { title: 'readmodels.sqlite + WAL (MiB)', series: () => [['', (p) => mib(p.readmodels_bytes)]] },
  { title: 'payload bucket tables standing (MiB, dbstat)', series: () => [['', (p) => mib(p.payload_table_bytes)]] },
  { title: 'free pages in events.sqlite (MiB)', series: () => [['', (p) => mib(p.free_bytes)]] },
  {
    title: 'payloads kept (thousands)',
    series: () => [['', (p) => (typeof p.kept_payloads === 'number' ? p.kept_payloads / 1000 : undefined)]],
  },
];

const options = parseArgs(process.argv.slice(2));
const withName = `retention ${options.retention} s`;
const withoutName = 'default retention (30 days)';
let report;
if (options.reportOnly) {
  // The figures again from a report already measured (e.g. with another --last).
  report = JSON.parse(readFileSync(options.reportOnly, 'utf8'));
  report.settings.last_windows = options.last;
  report.settings.body_bytes = SOAK_BODY_BYTES;
  report.runs = report.shapes.map((run) => summary(run, options.last));
} else {
  const scratch = mkdtempSync(join(tmpdir(), 'wts-retention-soak-'));
  const runs = [];
  try {
    const plan = [
      [withName, options.retention],
      [withoutName, undefined],
    ];
    if (options.order === 'retention-last') plan.reverse();
    for (const [name, retention] of plan) runs.push(soak(options, name, retention, scratch));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  report = {
    measured_at: new Date().toISOString(),
    machine: runs[0].machine,
    settings: {
      minutes: options.minutes,
      offered_rps: options.rate,
      window_seconds: options.window,
      last_windows: options.last,
      order: options.order,
    },
    minutes_per_shape: options.minutes,
    runs: runs.map((run) => summary(run, options.last)),
    shapes: runs.map((run) => Object.fromEntries(Object.entries(run).filter(([key]) => key !== 'machine'))),
  };
}
const colors = Object.fromEntries(report.shapes.map((run) => [run.shape, run.payload_retention_seconds ? ['#d62728'] : ['#1f77b4']]));
mkdirSync(options.out, { recursive: true });
writeFileSync(join(options.out, 'retention.json'), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(
  join(options.out, 'retention.svg'),
  soakChart(report, {
    title: `Store size at ${report.settings.offered_rps}/s, with and without a ${options.retention} s payload retention (${report.measured_at.slice(0, 10)})`,
    panels: PANELS,
    colors,
  }),
);
writeFileSync(join(options.out, 'retention.md'), retentionMarkdown(report));
console.log(JSON.stringify(report.runs, null, 2));
process.exitCode = report.runs.every((run) => run.every_202_a_run && run.unexpected_status === 0) ? 0 : 1;
