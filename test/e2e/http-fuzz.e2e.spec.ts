import { join } from 'node:path';
import { runJsonScript } from '../support/json-script';
import { assertBuilt } from '../support/service-processes';

const FUZZ_SCRIPT = join(__dirname, '..', '..', 'scripts', 'fuzz', 'http-fuzz.mjs');

interface FuzzSummary {
  requests: number;
  statuses: Record<string, number>;
  outcomes: Record<string, number>;
  unexpected_5xx: number;
  timeouts: number;
  failures: unknown[];
  alive: { ingress: boolean; dispatcher: boolean };
  readyz_after: number;
  valid_delivery_after: number;
  memory: { flat: boolean; ingress_after_warm_up_mib: number; ingress_last_quarter_mib: number };
  families: Record<string, { requests: number }>;
  passed: boolean;
}

function runFuzz(args: string[]): Promise<FuzzSummary> {
  return runJsonScript<FuzzSummary>(FUZZ_SCRIPT, args, 'fuzz');
}

/**
 * The short HTTP fuzz run (the long one is `npm run fuzz`): a fixed seed, a few thousand malformed
 * requests over raw sockets against the ingress and dispatcher started from dist/.
 * Every family runs, including admin bodies nested thousands of levels deep with a valid token
 * (a 500 before issue 10's finding 1 was fixed; a 400 now).
 */
describe('HTTP fuzz (short run, fixed seed)', () => {
  it('answers 3,000 malformed requests with no 5xx but a deliberate 503, no hang, no crash, and flat memory', async () => {
    assertBuilt();
    const summary = await runFuzz(['--requests', '3000', '--seed', '20261124', '--json']);
    expect(summary.requests).toBe(3000);
    expect(Object.keys(summary.families).length).toBeGreaterThanOrEqual(15);
    expect({ unexpected_5xx: summary.unexpected_5xx, timeouts: summary.timeouts, failures: summary.failures }).toEqual({
      unexpected_5xx: 0,
      timeouts: 0,
      failures: [],
    });
    expect(summary.alive).toEqual({ ingress: true, dispatcher: true });
    expect(summary.readyz_after).toBe(200);
    expect(summary.valid_delivery_after).toBe(202);
    expect(summary.statuses['202']).toBeGreaterThan(100);
    expect(summary.memory.flat).toBe(true);
    expect(summary.passed).toBe(true);
  }, 90_000);
});
