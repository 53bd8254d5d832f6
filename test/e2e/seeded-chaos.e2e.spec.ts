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
  passed: boolean;
}

function runChaos(args: string[]): Promise<ChaosSummary> {
  return runJsonScript<ChaosSummary>(CHAOS_SCRIPT, args, 'chaos');
}

/**
 * The short seeded chaos run (the long one is `npm run chaos`): the Kafka shape from dist/ with
 * its own test broker, deliveries retried until 202 under load, and kill -9 of the ingress, the
 * dispatcher and the broker once each at seeded moments. Every 202 is exactly one run.
 */
describe('seeded chaos on the Kafka shape (kill -9 of ingress, dispatcher and broker)', () => {
  it('counts runs = 202s, 0 duplicates, 0 orphans, 0 deliveries without a run', async () => {
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
    });
    expect({ runs_not_answered_202: summary.runs_not_answered_202, accepted_202_without_run: summary.accepted_202_without_run }).toEqual({
      runs_not_answered_202: 0,
      accepted_202_without_run: 0,
    });
    expect(summary.passed).toBe(true);
  }, 240_000);
});
