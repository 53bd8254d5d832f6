#!/usr/bin/env node
/* global Buffer */
/**
 * `npm run bench:bytes`: bytes at rest per delivery (issue 31, "Measure"). Starts the ingress and
 * the dispatcher from dist/ on a fresh DATA_DIR on 127.0.0.1 (bench-kit's startStack), sends N
 * deliveries of the bench's body (bench-kit's BODY) at a bounded rate, waits until every delivery
 * has its run and the read-model projector has caught up, stops both services, checkpoints the
 * WAL of each SQLite file (wal_checkpoint(TRUNCATE)) and measures: every file under DATA_DIR, the
 * pages of each table and index (dbstat), the stored size of each event type, and the copies of one
 * delivery's payload. Writes docs/bench/bytes-at-rest.json, .md and .svg.
 *
 *   npm run bench:bytes                          # 20,000 deliveries
 *   npm run bench:bytes -- --deliveries 2000 --out /tmp/bytes
 *
 * Options: --deliveries N (20000) --rate N (1000: deliveries offered per second at most)
 * --connections N (16) --out DIR (docs/bench); --render redraws the .md and .svg from the .json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { BODY, REPO, load, setUpWebhook, sleep, startStack, stopService } from './bench-kit.mjs';
import { round } from './bench-report.mjs';
import { bytesChart } from './bytes-chart.mjs';
import { markdown } from './bytes-report.mjs';
import { positiveInteger, readOptions, text } from './command-line.mjs';
import { deliveryToRunLatencies } from './store-timing.mjs';
import {
  checkpointWal,
  eventTypeSizes,
  eventsTableAfter,
  filesUnder,
  leafPacking,
  markerInFiles,
  pageBreakdown,
  payloadCopies,
  projectorCaughtUp,
  sampleDelivery,
  sqliteFiles,
  typeChanges,
} from './store-bytes.mjs';

/** Issue 31's target: at most 2 KB (taken as 2,000 bytes) at rest per delivery of this body. */
const TARGET_BYTES = 2000;
const SETTLE_TIMEOUT_MS = 10 * 60_000;
/** What a run gets of the body (its `data` member, as the ingress stores it) and a distinctive part of it to look for. */
const PAYLOAD_JSON = JSON.stringify(JSON.parse(BODY).data);
const MARKER = JSON.parse(BODY).data.note;

/**
 * Issue 31's two changes, estimated on a copy of the store: the events table rewritten in order
 * (VACUUM) as it is, then without RunCreated's framed message (a framer version instead), then also
 * without DeliveryAccepted's payload (as once retention has emptied the payload's own table).
 */
const DESIGN_STEPS = [
  { name: 'today, rewritten in order' },
  {
    name: 'RunCreated without its framed message',
    sql: "UPDATE events SET data = json_set(json_remove(data, '$.initialMessage'), '$.framerVersion', 1) WHERE type = 'RunCreated'",
  },
  {
    name: 'and DeliveryAccepted without its payload',
    sql: "UPDATE events SET data = json_remove(data, '$.payload') WHERE type = 'DeliveryAccepted'",
  },
];

const options = readOptions(
  process.argv.slice(2),
  { deliveries: 20_000, rate: 1000, connections: 16, out: join(REPO, 'docs', 'bench'), render: false },
  { deliveries: positiveInteger, rate: positiveInteger, connections: positiveInteger, out: text, render: true },
);
const files = { json: join(options.out, 'bytes-at-rest.json'), md: join(options.out, 'bytes-at-rest.md') };
const report = options.render ? JSON.parse(readFileSync(files.json, 'utf8')) : await measure();
mkdirSync(options.out, { recursive: true });
if (!options.render) writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(files.md, markdown(report));
writeFileSync(join(options.out, 'bytes-at-rest.svg'), bytesChart(chartData(report)));
process.stdout.write(markdown(report));

async function measure() {
  const stack = await startStack({ label: 'bytes' });
  try {
    const hook = await setUpWebhook(stack.baseUrl, stack.token, 'bytes');
    log(`sending ${options.deliveries} deliveries (${Buffer.byteLength(BODY)}-byte body) at up to ${options.rate}/s`);
    const sent = await load({
      baseUrl: stack.baseUrl,
      path: hook.path,
      headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
      body: BODY,
      connections: options.connections,
      amount: options.deliveries,
      overallRate: options.rate,
    });
    log(`sent: ${sent.requests} answered, ${Math.round(sent.rps)}/s, ${sent.unexpected_status} not 202, ${sent.errors} errors`);
    const settled = await settle(stack);
    const stopped = [];
    for (const service of [stack.ingress, stack.dispatcher]) {
      await stopService(service);
      stopped.push({ service: service.name, ...(await service.exited) });
    }
    const dir = stack.dataDir;
    const asLeft = filesUnder(dir);
    const checkpoints = Object.fromEntries(sqliteFiles(dir).map((name) => [name, checkpointWal(join(dir, name))]));
    const atRest = filesUnder(dir);
    const inFiles = markerInFiles(dir, MARKER);
    const databases = Object.fromEntries(sqliteFiles(dir).map((name) => [name, pageBreakdown(join(dir, name))]));
    const sample = sampleDelivery(stack.storeFile, Math.floor(settled.deliveries / 2));
    return summarise({
      sent,
      settled,
      stopped,
      asLeft,
      checkpoints,
      atRest,
      databases,
      eventTypes: eventTypeSizes(stack.storeFile),
      sample,
      copies: payloadCopies(dir, sample, PAYLOAD_JSON, MARKER),
      markerInFiles: inFiles,
      simulated: databases['events.sqlite'].method === 'dbstat' ? eventsTableAfter(stack.storeFile, DESIGN_STEPS) : null,
      packing: databases['events.sqlite'].method === 'dbstat' ? leafPacking(stack.storeFile, 'events') : null,
      typeChanges: typeChanges(stack.storeFile),
    });
  } finally {
    await stack.stop();
  }
}

/** Until every accepted delivery has its run and the projector's checkpoint is at the store's last event. */
async function settle(stack) {
  const started = Date.now();
  for (;;) {
    const runs = deliveryToRunLatencies(stack.storeFile, 0, Number.MAX_SAFE_INTEGER);
    const projector = projectorCaughtUp(stack.dataDir);
    if (runs.deliveries >= options.deliveries && runs.missing === 0 && projector.caught_up) {
      log(`settled: ${runs.deliveries} deliveries, every one a run, projector at ${projector.at}`);
      return { deliveries: runs.deliveries, seconds_after_load: Math.round((Date.now() - started) / 100) / 10, store_head: projector.head };
    }
    if (Date.now() - started > SETTLE_TIMEOUT_MS)
      throw new Error(
        `not settled: ${runs.deliveries} deliveries, ${runs.missing} without a run, projector ${projector.at} / ${projector.head}`,
      );
    await sleep(500);
  }
}

function summarise(measured) {
  const n = measured.settled.deliveries;
  const per = (bytes) => round(bytes / n);
  const total = measured.atRest.reduce((sum, file) => sum + file.bytes, 0);
  const databases = Object.fromEntries(
    Object.entries(measured.databases).map(([file, db]) => [
      file,
      {
        ...db,
        bytes_per_delivery: per(db.bytes),
        objects: db.objects.map((object) => ({ ...object, bytes_per_delivery: per(object.bytes) })),
      },
    ]),
  );
  const copies = measured.copies.flatMap((row) => row.copies.map((copy) => ({ ...copy, table: row.table, type: row.type })));
  const events = databases['events.sqlite'].objects.find((object) => object.name === 'events');
  return {
    measured_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
    deliveries: n,
    body_bytes: Buffer.byteLength(BODY),
    payload_bytes: Buffer.byteLength(PAYLOAD_JSON),
    target_bytes_per_delivery: TARGET_BYTES,
    total_bytes: total,
    bytes_per_delivery: per(total),
    load: { ...measured.sent, offered_rps: options.rate },
    settled: measured.settled,
    stopped: measured.stopped,
    files_as_left: measured.asLeft,
    wal_checkpoints: measured.checkpoints,
    files: measured.atRest.map((file) => ({ ...file, bytes_per_delivery: per(file.bytes) })),
    databases,
    events_leaf_pages: measured.packing,
    events_type_changes: measured.typeChanges,
    event_types: measured.eventTypes.map((row) => ({
      type: row.type,
      events: row.events,
      per_delivery: round(row.events / n),
      data_bytes: round(row.data_bytes),
      metadata_bytes: round(row.metadata_bytes),
      text_bytes: round(row.text_bytes),
    })),
    payload: {
      marker: MARKER,
      sample: measured.sample,
      rows: measured.copies,
      copies_per_delivery: copies.reduce((sum, copy) => sum + copy.count, 0),
      payload_bytes_per_delivery: copies.reduce((sum, copy) => sum + (copy.bytes ?? 0), 0),
      copies,
      marker_in_files: measured.markerInFiles,
      marker_per_delivery_in_files: round(measured.markerInFiles.reduce((sum, file) => sum + file.occurrences, 0) / n),
    },
    design_changes: measured.simulated ? designChanges({ total, live: events, simulated: measured.simulated, n }) : null,
  };
}

/**
 * Each step's bytes per delivery: its events table, and the whole DATA_DIR with the measured events
 * table replaced by it (the rewrite of today's rows is the check that a rewrite packs as the services do).
 */
function designChanges({ total, live, simulated, n }) {
  const [today, ...steps] = simulated;
  const per = (bytes) => round(bytes / n);
  return {
    events_table_as_written_per_delivery: per(live.bytes),
    events_table_rewritten_per_delivery: per(today.events_table_bytes),
    steps: steps.map((step) => ({
      name: step.name,
      sql: step.sql,
      events_table_per_delivery: per(step.events_table_bytes),
      events_table_unused_per_delivery: per(step.unused_bytes),
      bytes_per_delivery: per(total - live.bytes + step.events_table_bytes),
    })),
  };
}

/** The chart's bars: every table, index and non-SQLite file, biggest first (those under 0.2 % of the total as one). */
function chartData(saved) {
  const bars = [
    ...Object.entries(saved.databases).flatMap(([file, db]) =>
      db.objects.length > 0
        ? db.objects.map((object) => ({ label: barLabel(object), file, bytes_per_delivery: object.bytes_per_delivery }))
        : [{ label: `${file} (all pages)`, file, bytes_per_delivery: db.bytes_per_delivery }],
    ),
    ...saved.files.filter((file) => !(file.name in saved.databases)).map((file) => ({ label: file.name, file: 'other', ...file })),
  ].sort((a, b) => b.bytes_per_delivery - a.bytes_per_delivery);
  const least = saved.bytes_per_delivery / 500;
  const small = bars.filter((bar) => bar.bytes_per_delivery < least);
  const shown = bars.filter((bar) => bar.bytes_per_delivery >= least);
  if (small.length > 0)
    shown.push({
      label: `${small.length} more, under ${Math.round(least)} bytes each`,
      file: 'other',
      bytes_per_delivery: small.reduce((sum, bar) => sum + bar.bytes_per_delivery, 0),
    });
  return {
    title: `Bytes at rest per delivery: ${saved.deliveries} deliveries of a ${saved.body_bytes}-byte body (${saved.measured_at.slice(0, 10)})`,
    bars: shown,
    total_bytes_per_delivery: saved.bytes_per_delivery,
    target_bytes_per_delivery: saved.target_bytes_per_delivery,
  };
}

/** A table or index by name; an automatic index (UNIQUE, PRIMARY KEY) by its table and columns. */
function barLabel(object) {
  if (object.name.startsWith('sqlite_autoindex_')) return `${object.table} (${object.columns.join(', ')}) unique index`;
  return `${object.name} (${object.kind})`;
}

function log(message) {
  process.stderr.write(`[bytes] ${message}\n`);
}
