/**
 * docs/bench/erasure-speed.md and its chart from the measured report (scripts/bench/erasure-speed.mjs):
 * two panels of horizontal bars in the style of bytes-chart.mjs, the 202s' p50/p99 alone and during
 * an erasure, and the payloads scanned per second.
 */
import { escape, niceStep } from './latency-chart.mjs';

const WIDTH = 820;
const BAR = 18;
const GAP = 6;
const MARGIN = { left: 300, right: 110, top: 40, bottom: 20, panelGap: 60 };

const number = (value) => (typeof value === 'number' ? value.toLocaleString('en-US') : String(value));

function panel(parts, top, title, unit, bars) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const maxX = Math.max(1, ...bars.map((bar) => bar.value)) * 1.05;
  const x = (v) => MARGIN.left + (v / maxX) * plotW;
  const bottom = top + bars.length * (BAR + GAP);
  parts.push(`<text x="20" y="${top - 10}" font-weight="bold">${escape(title)}</text>`);
  const step = niceStep(maxX / 5);
  for (let v = 0; v <= maxX; v += step) {
    parts.push(`<line x1="${x(v).toFixed(1)}" x2="${x(v).toFixed(1)}" y1="${top}" y2="${bottom}" stroke="#eee"/>`);
    parts.push(`<text x="${x(v).toFixed(1)}" y="${bottom + 14}" text-anchor="middle">${number(v)}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${bottom + 30}" text-anchor="middle">${escape(unit)}</text>`);
  bars.forEach((bar, index) => {
    const y = top + index * (BAR + GAP);
    parts.push(
      `<rect x="${MARGIN.left}" y="${y}" width="${(x(bar.value) - MARGIN.left).toFixed(1)}" height="${BAR}" fill="${bar.color}"/>`,
    );
    parts.push(`<text x="${MARGIN.left - 8}" y="${y + BAR - 5}" text-anchor="end">${escape(bar.label)}</text>`);
    parts.push(`<text x="${(x(bar.value) + 6).toFixed(1)}" y="${y + BAR - 5}">${number(bar.value)}</text>`);
  });
  return bottom + 30;
}

export function erasureChart(report) {
  const latency = report.rounds.flatMap((round, index) => [
    { label: `round ${index + 1}: 202 p99 alone`, value: round.alone.p99_ms, color: '#1f77b4' },
    { label: `round ${index + 1}: 202 p99 during erasure`, value: round.during_erasure.p99_ms, color: '#d62728' },
  ]);
  const rates = [
    ...report.scans.map((scan, index) => ({
      label: `store scan, pass ${index + 1} (no services)`,
      value: scan.scanned_per_second,
      color: '#2ca02c',
    })),
    ...report.rounds.map((round, index) => ({
      label: `erasure ${index + 1} in the dispatcher`,
      value: round.erasure.scanned_per_second ?? 0,
      color: '#ff7f0e',
    })),
  ];
  const parts = [];
  const title = `Erasure by contains over ${number(report.settings.deliveries)} deliveries (${report.measured_at.slice(0, 10)})`;
  let top = MARGIN.top + 30;
  top = panel(
    parts,
    top,
    `202 latency at ${report.settings.load.offered_rps}/s offered (${report.settings.load.connections} connections, ${report.settings.load.seconds} s)`,
    'milliseconds',
    latency,
  );
  top = panel(parts, top + MARGIN.panelGap, 'payloads scanned per second', 'payloads / s', rates);
  const height = top + MARGIN.bottom;
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="20" y="22" font-size="14" font-weight="bold">${escape(title)}</text>`,
    ...parts,
    '</svg>',
  ].join('\n')}\n`;
}

export function erasureMarkdown(report) {
  const { settings, seeded, scans, rounds, machine } = report;
  const rows = rounds.map(
    (round, index) =>
      `| ${index + 1} | ${round.alone.p50_ms} / ${round.alone.p99_ms} | ${round.during_erasure.p50_ms} / ${round.during_erasure.p99_ms} | ${round.alone.rps} / ${round.during_erasure.rps} | ${round.erasure.status} | ${round.erasure.wall_seconds} | ${round.erasure.scan_seconds} | ${number(round.erasure.scanned)} | ${number(round.erasure.scanned_per_second)} | ${round.erasure.erased} |`,
  );
  return `${[
    '# Erasure speed',
    '',
    `Measured ${report.measured_at} with \`npm run bench:erasure\` (scripts/bench/erasure-speed.mjs) on ${machine.cpus} × ${machine.cpu}, ${machine.memory_gib} GiB, Node ${machine.node}. The machine is shared: figures are indicative, not a lab result.`,
    '',
    '## Method',
    '',
    `- A fresh temporary DATA_DIR (embedded shape: SQLite event store and read models). The services set up one account, routine and webhook through the admin API and are stopped.`,
    `- ${number(seeded.deliveries)} deliveries are appended through the store's API from dist/ (\`SqliteEventStore.append\` with the payload attachment, as the ingress's DeliveryAppender does; DeliveryAccepted v2 made by the domain's decider): the bench's body (bench-kit \`BODY\`) with a unique id inside, and ${seeded.needles} of them, spread evenly, also carrying \`${settings.needle_shape}\`. Seeding took ${seeded.seconds} s; events.sqlite is then ${seeded.store_mib} MiB. The seeded deliveries stand for history already dispatched and projected: the dispatcher's subscription checkpoint and the read-model projector's checkpoint are set to the store's head, so the services start without catching up on them (they have no RunCreated; an erasure of one of them therefore also withholds its run and parks it, as for a delivery still waiting).`,
    `- **Store scan**: with no service running, \`store.payloads().scan(needle, { cursor, limit: 10000 })\` in a loop over the whole payload store, twice (the second pass with the pages cached).`,
    `- **Under load**: both services are started on that DATA_DIR; a 5 s warm-up, then ${rounds.length} rounds of: a constant load of ${settings.load.offered_rps} requests/s offered over ${settings.load.connections} connections for ${settings.load.seconds} s (autocannon, bench-kit \`load\`, every answer expected 202) alone; then the same load with, ${settings.erasure_starts_after_ms / 1000} s into it, \`POST /admin/erasures {contains}\` as admin, polled every 100 ms until done. The erasure runs in the run-dispatcher (its runner looks for new erasures every 2 s). The first round erases the ${seeded.needles} matching payloads; later rounds search for the same string and find none left, but scan the same store.`,
    `- The erasure's scan rate is read from its own record: payloads scanned between its first and its last \`ErasureProgressed\` (windows of 10,000) over the time between them. Wall time is the client's, from the POST to seeing \`done\` (it includes the runner's pick-up delay of up to 2 s and the finishing reclaim).`,
    '',
    '## Results',
    '',
    '| store scan pass | payloads scanned | matches | windows | seconds | payloads / s |',
    '| --- | --- | --- | --- | --- | --- |',
    ...scans.map(
      (scan, index) =>
        `| ${index + 1} | ${number(scan.scanned)} | ${scan.matches} | ${scan.windows} | ${scan.seconds} | ${number(scan.scanned_per_second)} |`,
    ),
    '',
    '| round | 202 p50 / p99 alone (ms) | 202 p50 / p99 during erasure (ms) | answered/s alone / during | erasure | wall (s) | scan in dispatcher (s) | scanned | scanned / s | erased |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Answers other than 202: ${rounds.map((r) => r.alone.unexpected_status + r.during_erasure.unexpected_status).reduce((a, b) => a + b, 0)}; errors: ${rounds.map((r) => r.alone.errors + r.during_erasure.errors).reduce((a, b) => a + b, 0)}.`,
    '',
    '## Reading',
    '',
    `- A \`contains\` scan of the whole payload store runs at about ${number(Math.min(...scans.map((s) => s.scanned_per_second)))}–${number(Math.max(...scans.map((s) => s.scanned_per_second)))} payloads/s on this machine with nothing else running: ${number(scans[0].scanned)} payloads in about ${scans[0].seconds} s, in windows of 10,000 (one short read transaction each, SQL \`instr(lower(CAST(body AS TEXT)), ?)\`).`,
    `- Inside the run-dispatcher, under a ${settings.load.offered_rps}/s load on the same 2 cores, the erasure's scan ran at ${rounds.map((r) => number(r.erasure.scanned_per_second)).join(' and ')} payloads/s; the whole erasure took ${rounds.map((r) => r.erasure.wall_seconds).join(' and ')} s from the POST to \`done\` (pick-up by the runner, the windows, the reclaim).`,
    `- The scan runs synchronously on the dispatcher's main-thread connection (better-sqlite3), a window at a time; the ingress is another process, so what the 202s feel is the competition for the 2 cores. The p99 over the whole ${settings.load.seconds} s load went from ${rounds.map((r) => r.alone.p99_ms).join(' / ')} ms alone to ${rounds.map((r) => r.during_erasure.p99_ms).join(' / ')} ms with an erasure in it; the p50 from ${rounds.map((r) => r.alone.p50_ms).join(' / ')} to ${rounds.map((r) => r.during_erasure.p50_ms).join(' / ')} ms. The erasure covers only a few seconds of the ${settings.load.seconds} s, so the requests answered while it ran fare worse than this p99 says. No request failed or answered anything but 202.`,
    '',
    '![202 p99 alone and during an erasure; payloads scanned per second](erasure-speed.svg)',
    '',
    'Raw figures: [erasure-speed.json](erasure-speed.json).',
    '',
  ].join('\n')}`;
}
