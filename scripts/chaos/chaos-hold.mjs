/* global performance */
/**
 * The chaos run's hold scenario: which webhook is held, the seeded hold/release cycle, the release
 * with a kill -9 of the dispatcher part-way through its held runs, and the webhook's view after it.
 */
import Database from 'better-sqlite3';
import { admin, sleep } from '../bench/bench-kit.mjs';
import { prng } from '../fuzz/fuzz-cases.mjs';
import { deliveriesWithRuns, holdWindow } from './chaos-store.mjs';

/** Every HELD_SHARE-th delivery (index % HELD_SHARE === 1) goes to the webhook that is held and released. */
export const HELD_SHARE = 4;

/**
 * Seeded hold/release cycle, from a stream of its own (the kill plan of a seed is unchanged by it):
 * hold at a fraction of the deliveries sent in [0.03, 0.13], release in [0.45, 0.75], and a kill -9
 * of the dispatcher once the release has made a share in [0.1, 0.6] of the held runs, restarted
 * after a seeded pause of 50–1,500 ms.
 */
export function holdPlan(seed) {
  const r = prng((seed ^ 0x5bd1e995) >>> 0);
  const round = (x) => Math.round(x * 1000) / 1000;
  return {
    hold_at_fraction: round(0.03 + r.next() * 0.1),
    release_at_fraction: round(0.45 + r.next() * 0.3),
    kill_dispatcher_after_share: round(0.1 + r.next() * 0.5),
    down_ms: r.int(50, 1500),
  };
}

/** An admin call retried (refused, reset, 503) until it answers: the ingress may be restarting. */
export async function adminUntilAnswered(stack, method, path, body) {
  let last;
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      return await admin(stack.baseUrl, stack.token, method, path, body);
    } catch (error) {
      last = error;
    }
    await sleep(50);
  }
  throw last;
}

/**
 * Releases the held webhook, then kills -9 the dispatcher once the release has made the run of the
 * k-th held delivery (k a seeded share of them; the release makes them in acceptance order), and
 * starts it again. Returns what happened. Called in the dispatcher's turn (no other kill of it meanwhile).
 */
export async function releaseAndKill(stack, held, step) {
  const t0 = performance.now();
  await adminUntilAnswered(stack, 'POST', `/admin/routines/${held.routineId}/webhook/release`);
  const db = new Database(stack.storeFile, { readonly: true });
  try {
    const { heldSeq, releasedSeq } = holdWindow(db, held.webhookId);
    const backlog = releasedSeq === undefined ? [] : deliveriesWithRuns(db, held.webhookId, heldSeq, releasedSeq);
    const outcome = {
      held_backlog: backlog.length,
      kill_after_runs: 0,
      held_runs_at_kill: null,
      during_release: false,
      release_to_kill_ms: null,
    };
    if (backlog.length === 0) return { ...outcome, back_after_ms: Math.round(performance.now() - t0) };
    const k = Math.max(1, Math.floor(backlog.length * step.kill_dispatcher_after_share));
    outcome.kill_after_runs = k;
    // Done: its run, or (its payload expired while held) the mark that it never gets one.
    const hasRun = db.prepare("SELECT 1 AS found FROM events WHERE stream_id = ? AND type IN ('RunCreated', 'RunWithheld')");
    const deadline = performance.now() + 60_000;
    while (!hasRun.get(`run-${backlog[k - 1].run_id}`) && performance.now() < deadline) await sleep(5);
    outcome.release_to_kill_ms = Math.round(performance.now() - t0);
    stack.dispatcher.child.kill('SIGKILL');
    await stack.dispatcher.exited;
    outcome.held_runs_at_kill = backlog.filter((row) => hasRun.get(`run-${row.run_id}`)).length;
    outcome.during_release = outcome.held_runs_at_kill > 0 && outcome.held_runs_at_kill < backlog.length;
    await sleep(step.down_ms);
    await stack.startDispatcher();
    return { ...outcome, back_after_ms: Math.round(performance.now() - t0) };
  } finally {
    db.close();
  }
}

/** The held webhook's view once the release is done: not held, no delivery waiting (the read models catch up). */
export async function viewAfterRelease(stack, routineId) {
  const deadline = performance.now() + 30_000;
  let view = await adminUntilAnswered(stack, 'GET', `/admin/routines/${routineId}/webhook`);
  while ((view.held || view.held_deliveries !== 0) && performance.now() < deadline) {
    await sleep(250);
    view = await adminUntilAnswered(stack, 'GET', `/admin/routines/${routineId}/webhook`);
  }
  return { held: view.held, held_deliveries: view.held_deliveries };
}
