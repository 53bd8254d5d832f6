/* global setTimeout, Buffer */
/**
 * Can a caller tell the public endpoint's 404s apart by latency? The kinds of request that must
 * all answer the same 404 and differ only in what the server holds (spec: unknown endpoint,
 * disabled endpoint, wrong secret), of the same size in bytes (same id length, same secret
 * length), are sent interleaved — each round sends one of each, in a seeded random order, over one
 * keep-alive connection — against the ingress started from dist/ (embedded store, 127.0.0.1).
 * The spec's fourth 404, no Authorization header, is a request of another shape: with neither
 * Authorization nor a signature header it is checked as a Microsoft Graph notification whatever
 * the endpoint (its body read and each clientState compared), so it is timed in the Graph family
 * (timing-signed.mjs, kind bearer_webhook) against the other requests of that shape — a caller
 * knows which shape it sent; what must not show is the endpoint. Per kind, `--samples` latencies
 * (after `--warm-up` discarded rounds), then for each pair:
 *
 *  - two-sample Kolmogorov–Smirnov on the whole distributions (D and its asymptotic p), and
 *  - Yuen's test: Welch's t-test on 10 %-trimmed means with winsorised variances (t, df, p).
 *
 * A pair counts as distinguishable when either p is below α = 0.01 / (2 × the pairs compared in
 * the run): Bonferroni over every test the run makes (bearer, signed and burst pairs). A control
 * pair per family — the unknown-endpoint samples of even rounds against those of odd rounds —
 * shows what "indistinguishable" looks like on this machine (not counted in α).
 *
 * **Signed families** (timing-signed.mjs): per scheme (SIGNED_SCHEMES: github, stripe,
 * standard_webhooks, shopify, gitlab, linear, sentry, pagerduty, zendesk, svix, slack, zoom,
 * discord, twitch, x, meta, microsoft_graph) the signed refusals (Discord's the one 401, the others the 404) —
 * unknown endpoint, disabled endpoint, bad signature, a webhook of another scheme, and for the
 * schemes that sign a timestamp a stale one against an unknown id with a stale one — each family
 * its own block of the round (its kinds in a seeded random order), the blocks of the families
 * (bearer and one per scheme) in a seeded random order every round, on the same connection. Pairs are
 * compared within a family only. `--signed-samples` per kind (default `--samples`; 0: skipped).
 *
 * Then **burst, then probe**: what a refusal leaves behind after its answer (work deferred to
 * later, such as recording the attempt). Per trial, a burst of `--burst` requests of one kind
 * (unknown endpoint, wrong secret, disabled endpoint; kinds in seeded random order) is sent over 8
 * connections, then the same probe request (an unknown endpoint) is timed every 5 ms for 250 ms
 * (past the recorder's 100 ms flush); a trial's figure is its slowest probe. The kinds are compared
 * pairwise like the samples above; `--trials` per kind (0: skipped).
 *
 *   npm run bench:timing                       # 10,000 samples per kind, 150 burst trials per kind
 *   node scripts/bench/timing.mjs --samples 2000 --trials 50 --out /tmp/timing.json
 */
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { disableWebhook, setUpWebhook, startStack } from './bench-kit.mjs';
import { readOptions, runFromCommandLine, text } from './command-line.mjs';
import { ksTest, quantile, yuenTest } from './timing-stats.mjs';
import { prng } from '../fuzz/fuzz-cases.mjs';
import { SIGNED_BODY_BYTES, STALE_BY_SECONDS, preflight, setUpSignedFamilies } from './timing-signed.mjs';

const KINDS = ['unknown_endpoint', 'disabled_endpoint', 'wrong_secret'];
/** Family-wise error of the whole run, shared by all its tests (Bonferroni). */
const FAMILY_WISE_ERROR = 0.01;
const BEARER = 'bearer';

function parseArgs(argv) {
  const options = readOptions(
    argv,
    { samples: 10_000, signedSamples: undefined, warmUp: 1_000, seed: 1, out: undefined, trials: 150, burst: 400 },
    { samples: Number, signedSamples: Number, warmUp: Number, seed: Number, out: text, trials: Number, burst: Number },
  );
  options.signedSamples ??= options.samples;
  return options;
}

/** One POST on the shared keep-alive agent; microseconds from the request to the end of the answer. */
function timed(agent, port, path, headers, body) {
  return new Promise((resolveTimed, rejectTimed) => {
    const start = process.hrtime.bigint();
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolveTimed({ status: res.statusCode, us: Number(process.hrtime.bigint() - start) / 1000 }));
      },
    );
    req.on('error', rejectTimed);
    req.end(body);
  });
}

export async function runTiming(options, log = () => {}) {
  const startedAt = Date.now();
  const stack = await startStack({ label: 'timing', withDispatcher: false });
  try {
    const enabled = await setUpWebhook(stack.baseUrl, stack.token, 'timing');
    const disabled = await setUpWebhook(stack.baseUrl, stack.token, 'timing-off');
    await disableWebhook(stack.baseUrl, stack.token, disabled.routineId);
    const unknownId = `wh_${randomBytes(enabled.webhookId.length)
      .toString('base64url')
      .slice(0, enabled.webhookId.length - 3)}`;
    const wrongSecret = randomBytes(Buffer.from(enabled.secret).length).toString('base64url').slice(0, enabled.secret.length);
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ data: { order: 42, note: 'timing' } });
    const requests = {
      unknown_endpoint: { path: `/workflow-webhooks/${unknownId}`, headers: { ...json, authorization: `Bearer ${enabled.secret}` } },
      disabled_endpoint: { path: disabled.path, headers: { ...json, authorization: `Bearer ${disabled.secret}` } },
      wrong_secret: { path: enabled.path, headers: { ...json, authorization: `Bearer ${wrongSecret}` } },
    };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path, headers, payload) => timed(agent, stack.port, path, headers, payload);
    const signed = options.signedSamples > 0 ? await setUpSignedFamilies(stack, enabled) : {};
    const signedCheck = options.signedSamples > 0 ? await preflight(stack, signed, send) : null;
    const r = prng(options.seed);
    // The signed families and the order of the blocks draw from generators of their own, so the
    // bearer family's order for a seed is the one it always had.
    const blockOrder = prng(options.seed + 1_000_003);
    const signedOrder = prng(options.seed + 2_000_003);
    const samples = Object.fromEntries(KINDS.map((kind) => [kind, []]));
    for (const [scheme, family] of Object.entries(signed)) for (const kind of family.kinds) samples[`${scheme}:${kind}`] = [];
    const evenOdd = Object.fromEntries([BEARER, ...Object.keys(signed)].map((family) => [family, [[], []]]));
    const statuses = {};
    const rounds = options.warmUp + Math.max(options.samples, Object.keys(signed).length > 0 ? options.signedSamples : 0);
    for (let round = 0; round < rounds; round++) {
      const blocks = [];
      if (round < options.warmUp + options.samples) blocks.push(BEARER);
      if (round < options.warmUp + options.signedSamples) blocks.push(...Object.keys(signed));
      for (const block of shuffled(blocks, blockOrder)) {
        const family = block === BEARER ? undefined : signed[block];
        const order = family ? shuffled(family.kinds, signedOrder) : shuffled(KINDS, r);
        for (const kind of order) {
          // A signed request is built (and signed, with the time now) before its timed span starts.
          const request = family ? family.build(kind) : { ...requests[kind], body };
          const { status, us } = await send(request.path, request.headers, request.body);
          const name = family ? `${block}:${kind}` : kind;
          statuses[`${name}:${status}`] = (statuses[`${name}:${status}`] ?? 0) + 1;
          if (round < options.warmUp) continue;
          samples[name].push(us);
          if (kind === 'unknown_endpoint') evenOdd[block][round % 2].push(us);
        }
      }
      if (round % 2000 === 0) log(`${round}/${rounds} rounds`);
    }
    agent.destroy();
    const bursts = options.trials > 0 ? await burstThenProbe(stack.port, requests, body, options, r, log) : undefined;

    const signedPairCount = Object.values(signed).reduce((count, family) => count + family.pairs.length, 0);
    const tests = 2 * ((KINDS.length * (KINDS.length - 1)) / 2 + signedPairCount + (bursts ? BURST_PAIRS : 0));
    const alpha = FAMILY_WISE_ERROR / tests;
    const describe = (values) => ({
      n: values.length,
      p10_us: round1(quantile(values, 0.1)),
      median_us: round1(quantile(values, 0.5)),
      p90_us: round1(quantile(values, 0.9)),
      p99_us: round1(quantile(values, 0.99)),
    });
    const compare = (a, b) => {
      const ks = ksTest(a, b);
      const yuen = yuenTest(a, b, 0.1);
      return {
        ks_d: round4(ks.d),
        ks_p: ks.p,
        yuen_t: round4(yuen.t),
        yuen_df: Math.round(yuen.df),
        yuen_p: yuen.p,
        trimmed_mean_difference_us: round1(yuen.trimmedMeanA - yuen.trimmedMeanB),
        distinguishable: ks.p < alpha || yuen.p < alpha,
      };
    };
    const pairs = [];
    for (let i = 0; i < KINDS.length; i++)
      for (let j = i + 1; j < KINDS.length; j++) pairs.push({ a: KINDS[i], b: KINDS[j], ...compare(samples[KINDS[i]], samples[KINDS[j]]) });
    const controlOf = (family, kind) => ({
      a: `${kind} (even rounds)`,
      b: `${kind} (odd rounds)`,
      ...compare(evenOdd[family][0], evenOdd[family][1]),
    });
    const control = controlOf(BEARER, 'unknown_endpoint');
    const signedResults = Object.fromEntries(
      Object.entries(signed).map(([scheme, family]) => [
        scheme,
        {
          kinds: Object.fromEntries(family.kinds.map((kind) => [kind, describe(samples[`${scheme}:${kind}`])])),
          pairs: family.pairs.map(([a, b]) => ({ a, b, ...compare(samples[`${scheme}:${a}`], samples[`${scheme}:${b}`]) })),
          control: controlOf(scheme, `${scheme}:unknown_endpoint`),
        },
      ]),
    );
    const burstPairs = [];
    if (bursts)
      for (let i = 0; i < BURST_KINDS.length; i++)
        for (let j = i + 1; j < BURST_KINDS.length; j++)
          burstPairs.push({ a: BURST_KINDS[i], b: BURST_KINDS[j], ...compare(bursts[BURST_KINDS[i]], bursts[BURST_KINDS[j]]) });
    const everyPair = [...pairs, ...Object.values(signedResults).flatMap((family) => family.pairs), ...burstPairs];
    return {
      measured_at: new Date().toISOString(),
      duration_s: Math.round((Date.now() - startedAt) / 1000),
      seed: options.seed,
      samples_per_kind: options.samples,
      signed_samples_per_kind: Object.keys(signed).length > 0 ? options.signedSamples : 0,
      warm_up_rounds: options.warmUp,
      tests,
      alpha_per_test: alpha,
      statuses,
      kinds: Object.fromEntries(KINDS.map((kind) => [kind, describe(samples[kind])])),
      pairs,
      control,
      signed:
        Object.keys(signed).length > 0
          ? { body_bytes: SIGNED_BODY_BYTES, stale_by_seconds: STALE_BY_SECONDS, preflight: signedCheck, families: signedResults }
          : null,
      burst_then_probe: bursts
        ? {
            trials_per_kind: options.trials,
            burst: options.burst,
            slowest_probe_after_burst: Object.fromEntries(BURST_KINDS.map((kind) => [kind, describe(bursts[kind])])),
            pairs: burstPairs,
          }
        : null,
      indistinguishable: everyPair.every((pair) => !pair.distinguishable),
    };
  } finally {
    await stack.stop();
  }
}

const BURST_KINDS = ['unknown_endpoint', 'wrong_secret', 'disabled_endpoint'];
const BURST_PAIRS = (BURST_KINDS.length * (BURST_KINDS.length - 1)) / 2;
const PROBE_EVERY_MS = 5;
const PROBE_FOR_MS = 250;

/** Per kind, the slowest probe (µs) of each trial: a burst of that kind, then probes for 250 ms. */
async function burstThenProbe(port, requests, body, options, r, log) {
  const burstAgent = new Agent({ keepAlive: true, maxSockets: 8 });
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe = requests.unknown_endpoint;
  const slowest = Object.fromEntries(BURST_KINDS.map((kind) => [kind, []]));
  try {
    for (let trial = 0; trial < options.trials; trial++) {
      const order = shuffled(BURST_KINDS, r);
      for (const kind of order) {
        const { path, headers } = requests[kind];
        await Promise.all(Array.from({ length: options.burst }, () => timed(burstAgent, port, path, headers, body)));
        let max = 0;
        const until = Date.now() + PROBE_FOR_MS;
        while (Date.now() < until) {
          const { us } = await timed(probeAgent, port, probe.path, probe.headers, body);
          max = Math.max(max, us);
          await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
        }
        slowest[kind].push(max);
      }
      if (trial % 25 === 0) log(`burst-then-probe ${trial}/${options.trials} trials`);
    }
  } finally {
    burstAgent.destroy();
    probeAgent.destroy();
  }
  return slowest;
}

/** A copy of `items` in the seeded PRNG's order (Fisher–Yates). */
function shuffled(items, r) {
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const round1 = (value) => Math.round(value * 10) / 10;
const round4 = (value) => Math.round(value * 10_000) / 10_000;

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runFromCommandLine(parseArgs, runTiming);
  console.log(JSON.stringify(result, null, 2));
  setTimeout(() => process.exit(result.indistinguishable ? 0 : 1), 10);
}
