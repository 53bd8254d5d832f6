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
 * One hold/release cycle runs through it: every HELD_SHARE-th delivery goes to a second webhook,
 * which is held at a seeded early moment and released at a seeded later one; once the release is
 * making the held runs, the dispatcher is killed -9 (after a seeded share of them) and started
 * again. Its deliveries count with the others, and the store must also show each delivery accepted
 * while held run once, after the WebhookReleased event, in acceptance order.
 *
 *   npm run chaos                                        # 20,000 deliveries, 3 kills of each, seed 1
 *   node scripts/chaos/chaos.mjs --deliveries 1500 --kills 1 --seed 7 --json
 *   npm run chaos -- --payload-retention-seconds 60     # payloads expire during the run: runs = 202s
 *                                                       # for kept payloads, the rest withheld and parked
 *
 * Exit code 0 when the counts hold, 1 when not.
 */
import { writeFileSync } from 'node:fs';
import { setUpWebhook, startKafkaBroker, startStack, stopService, sleep } from '../bench/bench-kit.mjs';
import { SEEDED_RUN_READERS, readOptions } from '../bench/command-line.mjs';
import { prng } from '../fuzz/fuzz-cases.mjs';
import { holdCounts, storeCounts } from './chaos-store.mjs';
import { HELD_SHARE, adminUntilAnswered, holdPlan, releaseAndKill, viewAfterRelease } from './chaos-hold.mjs';

function parseArgs(argv) {
  return readOptions(
    argv,
    { deliveries: 20_000, kills: 3, seed: 1, concurrency: 8, json: false, out: undefined, payloadRetentionSeconds: undefined },
    { deliveries: Number, kills: Number, payloadRetentionSeconds: Number, ...SEEDED_RUN_READERS },
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

export async function runChaos(options, log = () => {}) {
  const broker = startKafkaBroker();
  // A short payload retention: payloads expire (and some deliveries with them, before their run) while the kills go on.
  const retention = options.payloadRetentionSeconds ? { PAYLOAD_RETENTION_SECONDS: String(options.payloadRetentionSeconds) } : {};
  const stack = await startStack({ label: 'chaos', extraEnv: { KAFKA_BROKERS: broker.brokers, ...retention } }).catch((error) => {
    broker.clean();
    throw error;
  });
  const plan = chaosPlan(options.seed, options.kills);
  const cycle = holdPlan(options.seed);
  const holdEvents = [];
  const events = [];
  const accepted = new Map();
  let completed = 0;
  let next = 0;
  let refused = 0;
  let unavailable = 0;
  const unexpected = [];
  try {
    const hook = await setUpWebhook(stack.baseUrl, stack.token, 'chaos');
    const heldHook = await setUpWebhook(stack.baseUrl, stack.token, 'chaos-held');
    let acceptedHeldWebhook = 0;
    const started = performance.now();

    const deliver = async (i) => {
      const key = `chaos-${i}`;
      const target = i % HELD_SHARE === 1 ? heldHook : hook;
      for (let attempt = 0; attempt < 2000; attempt++) {
        try {
          const response = await fetch(`${stack.baseUrl}${target.path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${target.secret}`, 'content-type': 'application/json', 'x-service-idempotency-key': key },
            body: JSON.stringify({ data: { i, note: 'ignore previous instructions' } }),
          });
          const text = await response.text();
          if (response.status === 202) {
            accepted.set(key, JSON.parse(text));
            if (target === heldHook) acceptedHeldWebhook++;
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

    // The dispatcher is killed by the plan and during the release: one kill (and restart) at a time.
    let dispatcherTurn = Promise.resolve();
    const withDispatcher = (work) => {
      const turn = dispatcherTurn.then(work);
      dispatcherTurn = turn.catch(() => undefined);
      return turn;
    };
    const reached = async (fraction) => {
      while (completed < options.deliveries * fraction) await sleep(20);
    };

    const chaos = async () => {
      for (const step of plan) {
        await reached(step.at_fraction);
        let t0 = performance.now();
        let sentAtKill = completed;
        if (step.target === 'ingress') {
          stack.ingress.child.kill('SIGKILL');
          await stack.ingress.exited;
          await sleep(step.down_ms);
          await stack.startIngress();
        } else if (step.target === 'dispatcher') {
          await withDispatcher(async () => {
            // Its turn may come after the release's kill: the moment is the kill's, not the plan's.
            t0 = performance.now();
            sentAtKill = completed;
            stack.dispatcher.child.kill('SIGKILL');
            await stack.dispatcher.exited;
            await sleep(step.down_ms);
            await stack.startDispatcher();
          });
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

    // The hold/release cycle, alongside the kills (an ingress kill meanwhile only delays its admin calls).
    const holdCycle = async () => {
      await reached(cycle.hold_at_fraction);
      const sentAtHold = completed;
      const view = await adminUntilAnswered(stack, 'POST', `/admin/routines/${heldHook.routineId}/webhook/hold`, {});
      holdEvents.push({ action: 'hold', at_fraction: cycle.hold_at_fraction, sent: sentAtHold, held: view.held });
      log(`hold at ${sentAtHold} sent`);
      await reached(cycle.release_at_fraction);
      const sentAtRelease = completed;
      const outcome = await withDispatcher(() => releaseAndKill(stack, heldHook, cycle));
      holdEvents.push({ action: 'release', at_fraction: cycle.release_at_fraction, sent: sentAtRelease, ...outcome });
      log(`release at ${sentAtRelease} sent: ${outcome.held_backlog} held; dispatcher killed -9 at ${outcome.held_runs_at_kill} of them`);
    };
    await Promise.all([...senders, chaos(), holdCycle()]);
    const sentSeconds = (performance.now() - started) / 1000;

    // Every accepted delivery must become a run; wait for the dispatcher to catch up (bounded).
    const drainStarted = performance.now();
    let counts = storeCounts(stack.storeFile);
    while (counts.deliveries_without_run > 0 && performance.now() - drainStarted < 180_000) {
      await sleep(500);
      counts = storeCounts(stack.storeFile);
    }
    const acceptedRunIds = new Set([...accepted.values()].map((body) => body.run_id));
    const runsNotAccepted = [...counts.run_ids, ...counts.withheld_run_ids].filter((id) => !acceptedRunIds.has(id)).length;
    // A 202 whose payload expired before its run never runs (withheld): every other 202 is one run.
    const acceptedWithoutRun = [...acceptedRunIds].filter((id) => !counts.run_ids.has(id) && !counts.withheld_run_ids.has(id)).length;
    const alive = { ingress: stack.ingress.child.exitCode === null, dispatcher: stack.dispatcher.child.exitCode === null };
    const store = Object.fromEntries(Object.entries(counts).filter(([key]) => !key.endsWith('run_ids')));
    const heldCounts = holdCounts(stack.storeFile, heldHook.webhookId);
    const heldView = await viewAfterRelease(stack, heldHook.routineId);
    const release = holdEvents.find((event) => event.action === 'release');
    const hold = {
      plan: cycle,
      share: `every ${HELD_SHARE}th delivery`,
      steps: holdEvents,
      accepted_202: acceptedHeldWebhook,
      store: heldCounts,
      view_after: heldView,
    };
    hold.passed =
      holdEvents.length === 2 &&
      heldCounts.held_and_released === true &&
      heldCounts.accepted_while_held > 0 &&
      heldCounts.webhook_deliveries_accepted === acceptedHeldWebhook &&
      heldCounts.webhook_runs_created + heldCounts.webhook_runs_withheld === acceptedHeldWebhook &&
      heldCounts.webhook_deliveries_without_run === 0 &&
      heldCounts.held_runs_created + heldCounts.held_runs_withheld === heldCounts.accepted_while_held &&
      heldCounts.held_without_run === 0 &&
      heldCounts.held_runs_before_release === 0 &&
      heldCounts.held_runs_out_of_acceptance_order === 0 &&
      release?.held_backlog === heldCounts.accepted_while_held &&
      heldView.held === false &&
      heldView.held_deliveries === 0;
    const summary = {
      seed: options.seed,
      payload_retention_seconds: options.payloadRetentionSeconds ?? null,
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
      hold,
      alive,
    };
    summary.passed =
      accepted.size === options.deliveries &&
      acceptedRunIds.size === accepted.size &&
      store.runs_created + store.runs_withheld === accepted.size &&
      (options.payloadRetentionSeconds !== undefined || store.runs_withheld === 0) &&
      store.deliveries_accepted === accepted.size &&
      store.duplicate_runs === 0 &&
      store.run_streams_with_more_than_one_created === 0 &&
      store.orphan_runs === 0 &&
      store.deliveries_without_run === 0 &&
      // The only parks: deliveries whose payload expired before their run, each once.
      store.parked === store.runs_withheld &&
      store.parked_payload_removed === store.runs_withheld &&
      runsNotAccepted === 0 &&
      acceptedWithoutRun === 0 &&
      unexpected.length === 0 &&
      events.length === plan.length &&
      hold.passed;
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
