/* global fetch, setTimeout, clearInterval, setInterval, performance, Buffer */
/**
 * HTTP fuzzing of the started services: the ingress and the run-dispatcher from dist/ (embedded
 * store, temporary DATA_DIR, 127.0.0.1 only), then a seeded stream of malformed requests over raw
 * sockets (fuzz-cases.mjs). Passes when no answer is a 5xx other than a deliberate 503, no
 * exchange hangs, both processes are still up, a valid delivery still gets 202, and the ingress
 * RSS stays flat (last quarter of the samples against the samples after warm-up).
 *
 *   npm run fuzz                                  # 100,000 requests, seed 1
 *   node scripts/fuzz/http-fuzz.mjs --requests 3000 --seed 20261124 --json --exclude-findings 1
 *
 * Options: --requests N, --seed S, --concurrency C (16), --exclude-findings 1,2 (leave out the
 * cases tagged with those issue-10 findings; included, they fail the run like any other case and
 * are tallied under known_findings_hit), --json (one JSON summary on stdout), --out FILE.
 * Exit code 0 when it passes, 1 when not.
 */
import { writeFileSync } from 'node:fs';
import { disableWebhook, rssMiB, setUpWebhook, startStack } from '../bench/bench-kit.mjs';
import { SEEDED_RUN_READERS, numbers, readOptions } from '../bench/command-line.mjs';
import { caseSource } from './fuzz-cases.mjs';
import { exchange } from './raw-http.mjs';

const MAX_PAYLOAD_BYTES = 256 * 1024;
/** RSS growth (MiB) between the post-warm-up median and the last-quarter median that still counts as flat. */
const FLAT_RSS_MIB = 48;

function parseArgs(argv) {
  return readOptions(
    argv,
    { requests: 100_000, seed: 1, concurrency: 16, excludeFindings: [], json: false, out: undefined },
    { requests: Number, excludeFindings: numbers, ...SEEDED_RUN_READERS },
  );
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)];
};

export async function runFuzz(options, log = () => {}) {
  const stack = await startStack({ label: 'fuzz', extraEnv: { WEBHOOK_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD_BYTES) } });
  const rss = [];
  const sampler = setInterval(() => {
    try {
      rss.push({
        at_request: done,
        ingress_mib: Math.round(rssMiB(stack.ingress.child.pid)),
        dispatcher_mib: Math.round(rssMiB(stack.dispatcher.child.pid)),
      });
    } catch {
      // a process that is gone is reported below
    }
  }, 1000);
  let done = 0;
  const started = performance.now();
  const statuses = {};
  const outcomes = {};
  const byFamily = {};
  const failures = [];
  const knownFindings = {};
  try {
    const enabled = await setUpWebhook(stack.baseUrl, stack.token, 'fuzz');
    const disabled = await setUpWebhook(stack.baseUrl, stack.token, 'fuzz-off');
    await disableWebhook(stack.baseUrl, stack.token, disabled.routineId);
    const override = await setUpWebhook(stack.baseUrl, stack.token, 'fuzz-pick', { accountOverrideAllowed: true });
    const next = caseSource(
      { enabled, disabled, override, adminToken: stack.token, maxPayloadBytes: MAX_PAYLOAD_BYTES },
      options.seed,
      options.excludeFindings,
    );

    let issued = 0;
    const worker = async () => {
      while (issued < options.requests) {
        const index = issued++;
        const testCase = next();
        const result = await exchange(stack.port, testCase.chunks, {
          halfClose: testCase.halfClose,
          expectResponses: testCase.expectResponses,
        });
        done++;
        const family = (byFamily[testCase.family] ??= { requests: 0, statuses: {} });
        family.requests++;
        outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
        for (const status of result.statuses) {
          statuses[status] = (statuses[status] ?? 0) + 1;
          family.statuses[status] = (family.statuses[status] ?? 0) + 1;
        }
        const bad = result.statuses.filter((status) => status >= 500 && status !== 503);
        if (bad.length > 0 || result.outcome === 'timeout' || result.outcome.startsWith('error:')) {
          // A case tagged with an issue-10 finding still fails the run; the tally says which finding it is.
          if (testCase.finding !== undefined) knownFindings[testCase.finding] = (knownFindings[testCase.finding] ?? 0) + 1;
          failures.push({
            index,
            family: testCase.family,
            finding: testCase.finding,
            outcome: result.outcome,
            statuses: result.statuses,
            request_head: Buffer.concat(testCase.chunks.map((chunk) => chunk.bytes))
              .subarray(0, 300)
              .toString('latin1'),
          });
        }
        if (done % 10_000 === 0) log(`${done} requests, ${failures.length} failures, ingress RSS ${rss.at(-1)?.ingress_mib} MiB`);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;

    const alive = {
      ingress: stack.ingress.child.exitCode === null && stack.ingress.child.signalCode === null,
      dispatcher: stack.dispatcher.child.exitCode === null && stack.dispatcher.child.signalCode === null,
    };
    const ready = await fetch(`${stack.baseUrl}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    const afterwards = await fetch(`${stack.baseUrl}${enabled.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${enabled.secret}`, 'content-type': 'application/json' },
      body: '{"data":{"after":"fuzz"}}',
    }).then(
      (response) => response.status,
      () => 0,
    );
    clearInterval(sampler);
    const warm = rss.slice(Math.floor(rss.length * 0.1), Math.floor(rss.length * 0.25) + 1).map((sample) => sample.ingress_mib);
    const last = rss.slice(Math.floor(rss.length * 0.75)).map((sample) => sample.ingress_mib);
    const memory = {
      samples: rss.length,
      ingress_after_warm_up_mib: median(warm),
      ingress_last_quarter_mib: median(last),
      ingress_max_mib: Math.max(...rss.map((sample) => sample.ingress_mib)),
      dispatcher_max_mib: Math.max(...rss.map((sample) => sample.dispatcher_mib)),
      flat_threshold_mib: FLAT_RSS_MIB,
    };
    memory.flat = memory.ingress_last_quarter_mib - memory.ingress_after_warm_up_mib <= FLAT_RSS_MIB;
    const fiveHundreds = Object.entries(statuses)
      .filter(([status]) => Number(status) >= 500 && Number(status) !== 503)
      .reduce((sum, [, count]) => sum + count, 0);
    const summary = {
      seed: options.seed,
      requests: done,
      concurrency: options.concurrency,
      excluded_findings: options.excludeFindings,
      seconds: Math.round(seconds),
      requests_per_s: Math.round(done / seconds),
      statuses,
      outcomes,
      unexpected_5xx: fiveHundreds,
      deliberate_503: statuses[503] ?? 0,
      timeouts: outcomes.timeout ?? 0,
      known_findings_hit: knownFindings,
      failures: failures.slice(0, 20),
      failures_by_family: failures.reduce((tally, failure) => ({ ...tally, [failure.family]: (tally[failure.family] ?? 0) + 1 }), {}),
      failure_count: failures.length,
      alive,
      readyz_after: ready,
      valid_delivery_after: afterwards,
      memory,
      rss_samples: rss,
      families: byFamily,
    };
    summary.passed = failures.length === 0 && alive.ingress && alive.dispatcher && ready === 200 && afterwards === 202 && memory.flat;
    return summary;
  } finally {
    clearInterval(sampler);
    await stack.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const log = options.json ? () => {} : (line) => console.error(line);
  const summary = await runFuzz(options, log);
  if (options.out) writeFileSync(options.out, `${JSON.stringify(summary, null, 2)}\n`);
  const short = Object.fromEntries(Object.entries(summary).filter(([key]) => key !== 'rss_samples' && key !== 'families'));
  console.log(JSON.stringify(options.json ? summary : short, null, options.json ? 0 : 2));
  // Let the timers of closed sockets drain without holding the exit.
  setTimeout(() => process.exit(summary.passed ? 0 : 1), 10);
}
