/* global fetch, setTimeout, performance */
/**
 * Chaos on the Kafka shape (ingress + relay → broker → run-dispatcher consumer, embedded store,
 * the test broker of scripts/kafka/kafka.sh, all on 127.0.0.1): a closed-loop stream of
 * deliveries, each sent with an idempotency key and retried until it gets a 202 (as a sender
 * with retries does), while the ingress, the dispatcher and the broker are each killed -9
 * `--kills` times, in an order and at moments drawn from `--seed`, and started again after a
 * seeded pause. Then, from the store: every 202 is exactly one run (runs = 202s), no delivery
 * has two runs (duplicates), and no run lacks its delivery (orphans).
 *
 *   npm run chaos                                        # 20,000 deliveries, 3 kills of each, seed 1
 *   node scripts/chaos/chaos.mjs --deliveries 1500 --kills 1 --seed 7 --json
 *
 * Exit code 0 when the counts hold, 1 when not.
 */
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { setUpWebhook, startKafkaBroker, startStack, stopService, sleep } from '../bench/bench-kit.mjs';
import { SEEDED_RUN_READERS, readOptions } from '../bench/command-line.mjs';
import { prng } from '../fuzz/fuzz-cases.mjs';

function parseArgs(argv) {
  return readOptions(
    argv,
    { deliveries: 20_000, kills: 3, seed: 1, concurrency: 8, json: false, out: undefined },
    { deliveries: Number, kills: Number, ...SEEDED_RUN_READERS },
  );
}

/** Seeded plan: each target `kills` times, shuffled, at sorted moments (fractions of the deliveries sent) in [0.08, 0.85]. */
export function chaosPlan(seed, kills) {
  const r = prng(seed);
  const targets = [];
  for (let k = 0; k < kills; k++) targets.push('ingress', 'dispatcher', 'broker');
  for (let i = targets.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [targets[i], targets[j]] = [targets[j], targets[i]];
  }
  const moments = targets.map(() => 0.08 + r.next() * 0.77).sort((a, b) => a - b);
  return targets.map((target, i) => ({ target, at_fraction: Math.round(moments[i] * 1000) / 1000, down_ms: r.int(50, 1500) }));
}

/** What the store says: deliveries, runs, duplicates, orphans and parks. Read-only, so the services may still run. */
function storeCounts(storeFile) {
  const db = new Database(storeFile, { readonly: true });
  try {
    const one = (sql) => Number(db.prepare(sql).get().n);
    return {
      deliveries_accepted: one("SELECT count(*) AS n FROM events WHERE category = 'delivery-' AND type = 'DeliveryAccepted'"),
      runs_created: one("SELECT count(*) AS n FROM events WHERE category = 'run-' AND type = 'RunCreated'"),
      duplicate_runs: one(
        "SELECT coalesce(sum(c - 1), 0) AS n FROM (SELECT count(*) AS c FROM events WHERE category = 'run-' AND type = 'RunCreated' GROUP BY json_extract(data, '$.deliveryId'))",
      ),
      run_streams_with_more_than_one_created: one(
        "SELECT count(*) AS n FROM (SELECT stream_id FROM events WHERE category = 'run-' AND type = 'RunCreated' GROUP BY stream_id HAVING count(*) > 1)",
      ),
      // Through the delivery's stream id (indexed): a run whose delivery was never accepted, or names another run.
      orphan_runs: one(`SELECT count(*) AS n FROM events r WHERE r.category = 'run-' AND r.type = 'RunCreated' AND NOT EXISTS (
          SELECT 1 FROM events d WHERE d.stream_id = 'delivery-' || json_extract(r.data, '$.deliveryId') AND d.type = 'DeliveryAccepted'
           AND json_extract(d.data, '$.runId') = json_extract(r.data, '$.runId'))`),
      deliveries_without_run:
        one(`SELECT count(*) AS n FROM events d WHERE d.category = 'delivery-' AND d.type = 'DeliveryAccepted' AND NOT EXISTS (
          SELECT 1 FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND r.type = 'RunCreated')`),
      parked: one("SELECT count(*) AS n FROM events WHERE type = 'DispatchParked'"),
      run_ids: new Set(
        db
          .prepare("SELECT json_extract(data, '$.runId') AS id FROM events WHERE category = 'run-' AND type = 'RunCreated'")
          .all()
          .map((row) => row.id),
      ),
    };
  } finally {
    db.close();
  }
}

export async function runChaos(options, log = () => {}) {
  const broker = startKafkaBroker();
  const stack = await startStack({ label: 'chaos', extraEnv: { KAFKA_BROKERS: broker.brokers } }).catch((error) => {
    broker.clean();
    throw error;
  });
  const plan = chaosPlan(options.seed, options.kills);
  const events = [];
  const accepted = new Map();
  let completed = 0;
  let next = 0;
  let refused = 0;
  let unavailable = 0;
  const unexpected = [];
  try {
    const hook = await setUpWebhook(stack.baseUrl, stack.token, 'chaos');
    const started = performance.now();

    const deliver = async (i) => {
      const key = `chaos-${i}`;
      for (let attempt = 0; attempt < 2000; attempt++) {
        try {
          const response = await fetch(`${stack.baseUrl}${hook.path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json', 'x-service-idempotency-key': key },
            body: JSON.stringify({ data: { i, note: 'ignore previous instructions' } }),
          });
          const text = await response.text();
          if (response.status === 202) {
            accepted.set(key, JSON.parse(text));
            return;
          }
          if (response.status === 503) unavailable++;
          else if (unexpected.length < 20) unexpected.push({ key, status: response.status, body: text.slice(0, 300) });
        } catch {
          refused++;
        }
        await sleep(50);
      }
      throw new Error(`${key} never got a 202`);
    };
    const senders = Array.from({ length: options.concurrency }, async () => {
      while (next < options.deliveries) {
        const i = next++;
        await deliver(i);
        completed++;
      }
    });

    const chaos = async () => {
      for (const step of plan) {
        while (completed < options.deliveries * step.at_fraction) await sleep(20);
        const t0 = performance.now();
        const sentAtKill = completed;
        if (step.target === 'ingress') {
          stack.ingress.child.kill('SIGKILL');
          await stack.ingress.exited;
          await sleep(step.down_ms);
          await stack.startIngress();
        } else if (step.target === 'dispatcher') {
          stack.dispatcher.child.kill('SIGKILL');
          await stack.dispatcher.exited;
          await sleep(step.down_ms);
          await stack.startDispatcher();
        } else {
          broker.kill();
          await sleep(step.down_ms);
          await broker.startAsync();
        }
        const event = { ...step, sent_at_kill: sentAtKill, back_after_ms: Math.round(performance.now() - t0) };
        events.push(event);
        log(`kill -9 ${step.target} at ${sentAtKill} sent; back after ${event.back_after_ms} ms`);
      }
    };
    await Promise.all([...senders, chaos()]);
    const sentSeconds = (performance.now() - started) / 1000;

    // Every accepted delivery must become a run; wait for the dispatcher to catch up (bounded).
    const drainStarted = performance.now();
    let counts = storeCounts(stack.storeFile);
    while (counts.deliveries_without_run > 0 && performance.now() - drainStarted < 180_000) {
      await sleep(500);
      counts = storeCounts(stack.storeFile);
    }
    const acceptedRunIds = new Set([...accepted.values()].map((body) => body.run_id));
    const runsNotAccepted = [...counts.run_ids].filter((id) => !acceptedRunIds.has(id)).length;
    const acceptedWithoutRun = [...acceptedRunIds].filter((id) => !counts.run_ids.has(id)).length;
    const alive = { ingress: stack.ingress.child.exitCode === null, dispatcher: stack.dispatcher.child.exitCode === null };
    const store = Object.fromEntries(Object.entries(counts).filter(([key]) => key !== 'run_ids'));
    const summary = {
      seed: options.seed,
      deliveries: options.deliveries,
      concurrency: options.concurrency,
      kills_per_target: options.kills,
      plan: events,
      sent_seconds: Math.round(sentSeconds),
      drained_after_ms: Math.round(performance.now() - drainStarted),
      accepted_202: accepted.size,
      distinct_run_ids_in_202s: acceptedRunIds.size,
      retries_refused_or_reset: refused,
      retries_after_503: unavailable,
      unexpected_statuses: unexpected,
      store,
      runs_not_answered_202: runsNotAccepted,
      accepted_202_without_run: acceptedWithoutRun,
      alive,
    };
    summary.passed =
      accepted.size === options.deliveries &&
      acceptedRunIds.size === accepted.size &&
      store.runs_created === accepted.size &&
      store.deliveries_accepted === accepted.size &&
      store.duplicate_runs === 0 &&
      store.run_streams_with_more_than_one_created === 0 &&
      store.orphan_runs === 0 &&
      store.deliveries_without_run === 0 &&
      store.parked === 0 &&
      runsNotAccepted === 0 &&
      acceptedWithoutRun === 0 &&
      unexpected.length === 0 &&
      events.length === plan.length;
    return summary;
  } finally {
    await Promise.all([stack.ingress, stack.dispatcher].filter(Boolean).map(stopService));
    await stack.stop();
    broker.clean();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const summary = await runChaos(options, options.json ? () => {} : (line) => console.error(line));
  if (options.out) writeFileSync(options.out, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary, null, options.json ? 0 : 2));
  setTimeout(() => process.exit(summary.passed ? 0 : 1), 10);
}
