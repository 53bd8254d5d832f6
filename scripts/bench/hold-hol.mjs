/* global setTimeout, performance */
/**
 * Head-of-line blocking of a hold: does holding (and releasing) webhook A slow down webhook B,
 * whose deliveries share A's Kafka partition (and, on the embedded default, the store's one
 * subscription)? On each shape, from dist/ on 127.0.0.1, B receives deliveries at a steady rate
 * (open loop) through three phases:
 *
 *   (a) A not held and idle;
 *   (b) A held and receiving deliveries as fast as `--a-concurrency` senders get answers (a held
 *       backlog of thousands);
 *   (c) A released: its backlog is run (one at a time, ReleaseDrainWorker) while B goes on; the
 *       phase ends with A's last held run.
 *
 * B's latency is the time from its DeliveryAccepted to its RunCreated, both as appended in the
 * store (created_at, ms; the ingress answers 202 once that append is durable, so this is 202 →
 * run without the load generator's own scheduling in it). Reported: p50/p90/p99 per phase and
 * their ratios against (a) of the same run.
 *
 *   node scripts/bench/hold-hol.mjs                          # both shapes once, defaults below
 *   node scripts/bench/hold-hol.mjs --runs 3 --out /tmp/hold-hol.json   # what docs/bench/hold-hol.md reports
 *   node scripts/bench/hold-hol.mjs --shape kafka --b-rate 50 --seconds 20 --json
 *
 * Each run starts its own stack (and broker); `--runs N` repeats both shapes N times, alternating,
 * and the summary adds each shape's medians over the runs.
 *
 * Needs `npm run build` first (the services run from dist/) and, for the Kafka shape, what
 * scripts/kafka/kafka.sh needs (Java 17+; Maven on the first fetch of the jars).
 */
import Database from 'better-sqlite3';
import kafkajs from 'kafkajs';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO, admin, assertLoopback, setUpWebhook, sleep, startKafkaBroker, startStack } from './bench-kit.mjs';
import { medians, ratio, summarize, table } from './hold-hol-report.mjs';
import { burstSender, steadySender } from './hold-hol-senders.mjs';
import { positiveInteger, readOptions, text } from './command-line.mjs';

const { Kafka, Partitioners, logLevel } = kafkajs;
const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const options = readOptions(
    argv,
    {
      shape: 'both',
      bRate: 50,
      seconds: 20,
      warmUp: 3,
      aConcurrency: 16,
      maxReleaseSeconds: 180,
      candidates: 40,
      runs: 1,
      json: false,
      out: undefined,
    },
    {
      shape: text,
      bRate: positiveInteger,
      seconds: positiveInteger,
      warmUp: positiveInteger,
      aConcurrency: positiveInteger,
      maxReleaseSeconds: positiveInteger,
      candidates: positiveInteger,
      runs: positiveInteger,
      json: true,
      out: text,
    },
  );
  if (!['both', 'kafka', 'embedded'].includes(options.shape)) throw new Error('--shape must be both, kafka or embedded');
  return options;
}

/** The partition the relay's producer (kafkajs DefaultPartitioner) sends a key to. */
function partitionOf(topic, partitions, key) {
  return Partitioners.DefaultPartitioner()({ topic, partitionMetadata: partitions, message: { key, value: null } });
}

async function topicPartitions(brokers, topic) {
  const kafka = new Kafka({ clientId: 'hold-hol', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const client = kafka.admin();
  await client.connect();
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const topics = await client.listTopics();
      if (topics.includes(topic)) {
        const metadata = await client.fetchTopicMetadata({ topics: [topic] });
        if (metadata.topics[0]?.partitions.length > 0) return metadata.topics[0].partitions;
      }
      await sleep(200);
    }
    throw new Error(`${topic} was never created`);
  } finally {
    await client.disconnect();
  }
}

/** Waits (bounded) until every run id has its RunCreated in the store. */
async function waitForRuns(db, runIds, timeoutMs) {
  const has = db.prepare("SELECT 1 AS found FROM events WHERE stream_id = ? AND type = 'RunCreated'");
  const deadline = performance.now() + timeoutMs;
  let missing = runIds;
  while (missing.length > 0 && performance.now() < deadline) {
    missing = missing.filter((id) => !has.get(`run-${id}`));
    if (missing.length > 0) await sleep(250);
  }
  return missing.length;
}

/** One shape: the stack, A and B (on A's partition on Kafka), the three phases, B's latencies from the store. */
async function runShape(shape, options, log) {
  const broker = shape === 'kafka' ? startKafkaBroker() : undefined;
  let stack;
  try {
    stack = await startStack({ label: `hold-hol-${shape}`, extraEnv: broker ? { KAFKA_BROKERS: broker.brokers } : {} });
    assertLoopback(stack.baseUrl);
    const a = await setUpWebhook(stack.baseUrl, stack.token, 'hol-a');
    let b;
    let partition = null;
    let partitions = null;
    let candidates = 0;
    if (broker) {
      const { KafkaTopics } = require(join(REPO, 'dist/libs/messaging/src'));
      const topic = KafkaTopics.webhookEvents;
      const metadata = await topicPartitions(broker.brokers, topic);
      partitions = metadata.length;
      partition = partitionOf(topic, metadata, a.webhookId);
      while (!b && candidates < options.candidates) {
        candidates++;
        const candidate = await setUpWebhook(stack.baseUrl, stack.token, `hol-b${candidates}`);
        if (partitionOf(topic, metadata, candidate.webhookId) === partition) b = candidate;
      }
      if (!b) throw new Error(`none of ${options.candidates} webhooks landed on partition ${partition}`);
    } else {
      b = await setUpWebhook(stack.baseUrl, stack.token, 'hol-b');
    }
    log(`${shape}: A ${a.webhookId}, B ${b.webhookId}${broker ? ` (both on partition ${partition} of ${partitions})` : ''}`);

    let phase = 'warm_up';
    const steady = steadySender(stack.baseUrl, b, options.bRate, () => phase);
    await sleep(options.warmUp * 1000);
    phase = 'a_idle';
    log(`${shape}: (a) A idle, ${options.seconds} s`);
    await sleep(options.seconds * 1000);

    await admin(stack.baseUrl, stack.token, 'POST', `/admin/routines/${a.routineId}/webhook/hold`, {});
    phase = 'b_held';
    log(`${shape}: (b) A held, ${options.aConcurrency} senders on A, ${options.seconds} s`);
    const burst = burstSender(stack.baseUrl, a, options.aConcurrency, 'a-held');
    const heldStarted = performance.now();
    await sleep(options.seconds * 1000);
    const held = await burst.stop();
    const heldSeconds = (performance.now() - heldStarted) / 1000;

    phase = 'c_release';
    await admin(stack.baseUrl, stack.token, 'POST', `/admin/routines/${a.routineId}/webhook/release`);
    log(`${shape}: (c) A released with ${held.accepted} held deliveries`);
    const db = new Database(stack.storeFile, { readonly: true });
    try {
      // The held deliveries' runs, counted until the last one (bounded).
      const aRuns = db.prepare(
        "SELECT count(*) AS n, max(created_at) AS last FROM events WHERE category = 'run-' AND type = 'RunCreated' AND json_extract(data, '$.routineId') = ?",
      );
      const releaseStarted = performance.now();
      let made = aRuns.get(a.routineId);
      while (made.n < held.accepted && performance.now() - releaseStarted < options.maxReleaseSeconds * 1000) {
        await sleep(100);
        made = aRuns.get(a.routineId);
      }
      await sleep(1000); // a second of B after the drain, so that (c) is bounded by the store's times, not by this loop
      const bSent = await steady.stop();

      const failed = bSent.filter((entry) => entry.error);
      const missing = await waitForRuns(
        db,
        bSent.filter((entry) => !entry.error).map((entry) => entry.run_id),
        60_000,
      );
      made = aRuns.get(a.routineId);
      const release = db
        .prepare("SELECT created_at FROM events WHERE stream_id = ? AND type = 'WebhookReleased' ORDER BY revision DESC LIMIT 1")
        .get(`webhook-${a.webhookId}`);
      const releasedAt = Number(release.created_at);
      const lastHeldRunAt = Number(made.last);
      const times = db.prepare(
        `SELECT (SELECT created_at FROM events WHERE stream_id = ? AND type = 'DeliveryAccepted') AS accepted_at,
                (SELECT created_at FROM events WHERE stream_id = ? AND type = 'RunCreated') AS run_at`,
      );
      const byPhase = { a_idle: [], b_held: [], c_release: [] };
      for (const entry of bSent) {
        if (entry.error || entry.phase === 'warm_up') continue;
        const row = times.get(`delivery-${entry.delivery_id}`, `run-${entry.run_id}`);
        if (row.accepted_at === null || row.run_at === null) continue;
        const acceptedAt = Number(row.accepted_at);
        const latency = Number(row.run_at) - acceptedAt;
        // (c) is the release itself: B's deliveries accepted from the WebhookReleased to A's last held run.
        if (entry.phase === 'c_release') {
          if (acceptedAt >= releasedAt && acceptedAt <= lastHeldRunAt) byPhase.c_release.push(latency);
        } else byPhase[entry.phase].push(latency);
      }
      const phases = Object.fromEntries(Object.entries(byPhase).map(([name, values]) => [name, summarize(values)]));
      const base = phases.a_idle;
      for (const name of ['b_held', 'c_release']) {
        const p = phases[name];
        p.ratio_to_a = { p50: ratio(p.p50_ms, base.p50_ms), p90: ratio(p.p90_ms, base.p90_ms), p99: ratio(p.p99_ms, base.p99_ms) };
      }
      return {
        shape,
        partition: broker ? { shared: partition, of: partitions, candidates_set_up: candidates } : null,
        b_rate_per_s: options.bRate,
        phase_seconds: options.seconds,
        a_held: {
          concurrency: options.aConcurrency,
          accepted_202: held.accepted,
          per_s: Math.round(held.accepted / heldSeconds),
          errors: held.errors,
        },
        release: {
          held_runs_made: made.n,
          release_to_last_held_run_ms: lastHeldRunAt - releasedAt,
          held_runs_per_s: lastHeldRunAt > releasedAt ? Math.round((made.n / (lastHeldRunAt - releasedAt)) * 1000) : null,
        },
        b_sent: bSent.length,
        b_failed: failed.length,
        b_failures: failed.slice(0, 5).map((entry) => entry.error),
        b_without_run: missing,
        phases,
      };
    } finally {
      db.close();
    }
  } finally {
    await stack?.stop();
    broker?.clean();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const log = options.json ? () => {} : (line) => console.error(line);
  const shapes = options.shape === 'both' ? ['kafka', 'embedded'] : [options.shape];
  const results = [];
  for (let run = 1; run <= options.runs; run++) {
    // Alternate the order from run to run, so that neither shape always goes first.
    for (const shape of run % 2 === 1 ? shapes : [...shapes].reverse()) {
      const result = { run, ...(await runShape(shape, options, log)) };
      results.push(result);
      if (!options.json) console.log(`run ${run}, ${table(result)}\n${JSON.stringify({ ...result, phases: undefined })}\n`);
    }
  }
  const summary = {
    at: new Date().toISOString(),
    options: { ...options, out: undefined, json: undefined },
    medians: medians(results),
    results,
  };
  if (options.out) writeFileSync(options.out, `${JSON.stringify(summary, null, 2)}\n`);
  if (options.json) console.log(JSON.stringify(summary));
  else console.log(`medians over the runs:\n${JSON.stringify(summary.medians, null, 2)}`);
  const ok = results.every(
    (result) => result.b_failed === 0 && result.b_without_run === 0 && result.release.held_runs_made >= result.a_held.accepted_202,
  );
  setTimeout(() => process.exit(ok ? 0 : 1), 10);
}
