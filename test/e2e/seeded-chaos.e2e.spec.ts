import { join } from 'node:path';
import { runJsonScript } from '../support/json-script';
import { assertBuilt } from '../support/service-processes';

const CHAOS_SCRIPT = join(__dirname, '..', '..', 'scripts', 'chaos', 'chaos.mjs');

interface ChaosSummary {
  deliveries: number;
  plan: { target: string; sent_at_kill: number }[];
  accepted_202: number;
  unexpected_statuses: unknown[];
  store: {
    deliveries_accepted: number;
    runs_created: number;
    duplicate_runs: number;
    run_streams_with_more_than_one_created: number;
    orphan_runs: number;
    deliveries_without_run: number;
    parked: number;
  };
  runs_not_answered_202: number;
  accepted_202_without_run: number;
  hold: {
    steps: { action: string; held_backlog?: number; held_runs_at_kill?: number | null; during_release?: boolean }[];
    accepted_202: number;
    store: {
      webhook_deliveries_accepted: number;
      webhook_runs_created: number;
      webhook_deliveries_without_run: number;
      held_and_released: boolean;
      accepted_while_held: number;
      held_runs_created: number;
      held_without_run: number;
      held_runs_before_release: number;
      held_runs_out_of_acceptance_order: number;
    };
    view_after: { held: boolean; held_deliveries: number | null };
    passed: boolean;
  };
  passed: boolean;
}

function runChaos(args: string[]): Promise<ChaosSummary> {
  return runJsonScript<ChaosSummary>(CHAOS_SCRIPT, args, 'chaos');
}

/**
 * The short seeded chaos run (the long one is `npm run chaos`): the Kafka shape from dist/ with
 * its own test broker, deliveries retried until 202 under load, and kill -9 of the ingress, the
 * dispatcher and the broker once each at seeded moments. Every 202 is exactly one run. A second
 * webhook takes every 4th delivery and is held, then released with the dispatcher killed -9 while
 * the release makes the held runs: each held delivery still runs once, after the release, in
 * acceptance order.
 */
describe('seeded chaos on the Kafka shape (kill -9 of ingress, dispatcher and broker; a hold released under a dispatcher kill)', () => {
  it('counts runs = 202s, 0 duplicates, 0 orphans, 0 deliveries without a run; held runs once each, after the release, in order', async () => {
    assertBuilt();
    const summary = await runChaos(['--deliveries', '1500', '--kills', '1', '--seed', '20261124', '--json']);
    expect(summary.plan.map((step) => step.target).sort()).toEqual(['broker', 'dispatcher', 'ingress']);
    expect(summary.accepted_202).toBe(1500);
    expect(summary.unexpected_statuses).toEqual([]);
    expect(summary.store).toEqual({
      deliveries_accepted: 1500,
      runs_created: 1500,
      duplicate_runs: 0,
      run_streams_with_more_than_one_created: 0,
      orphan_runs: 0,
      deliveries_without_run: 0,
      parked: 0,
      // The default payload retention (30 days): nothing expires during the run.
      runs_withheld: 0,
      parked_payload_removed: 0,
      payloads_removed: 0,
    });
    expect({ runs_not_answered_202: summary.runs_not_answered_202, accepted_202_without_run: summary.accepted_202_without_run }).toEqual({
      runs_not_answered_202: 0,
      accepted_202_without_run: 0,
    });
    // The hold/release cycle: the held webhook's 202s are its runs, each held one made after the release, in order.
    const { hold } = summary;
    expect(hold.steps.map((step) => step.action)).toEqual(['hold', 'release']);
    const release = hold.steps[1];
    expect(hold.store.held_and_released).toBe(true);
    expect(hold.store.accepted_while_held).toBeGreaterThan(0);
    expect(release.held_backlog).toBe(hold.store.accepted_while_held);
    expect(release.held_runs_at_kill).toBeGreaterThan(0);
    expect(release.held_runs_at_kill).toBeLessThan(hold.store.accepted_while_held);
    expect(release.during_release).toBe(true);
    expect(hold.store).toMatchObject({
      webhook_deliveries_accepted: hold.accepted_202,
      webhook_runs_created: hold.accepted_202,
      webhook_deliveries_without_run: 0,
      held_runs_created: hold.store.accepted_while_held,
      held_without_run: 0,
      held_runs_before_release: 0,
      held_runs_out_of_acceptance_order: 0,
    });
    expect(hold.view_after).toEqual({ held: false, held_deliveries: 0 });
    expect(hold.passed).toBe(true);
    expect(summary.passed).toBe(true);
  }, 240_000);
});
