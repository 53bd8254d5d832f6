/* global Buffer */
/**
 * What routine rules cost a 202 (issue 33: "a typical filter and schema add no more than a few
 * percent"): one ingress, two webhooks — one without rules, one with a typical CEL filter and
 * JSON Schema that the payload meets, so both answer 202 and store the same delivery — and the
 * same load against each in alternating rounds. Rounds alternate because the store grows and the
 * machine is shared: a drift then falls on both sides alike, and each pair's ratio is taken within
 * the pair. CPU per request is read from /proc for the ingress process: it is the cost itself,
 * where requests/s also carries the load generator's share of the two cores.
 */
import { admin, cpuSeconds, load, median, setUpWebhook, startStack } from './bench-kit.mjs';
import { round } from './bench-report.mjs';

/** A GitHub `pull_request` delivery as a sender posts it (no `data` member: the whole body is the payload). */
export const PULL_REQUEST_BODY = JSON.stringify({
  action: 'opened',
  number: 1347,
  pull_request: {
    id: 279147437,
    number: 1347,
    state: 'open',
    draft: false,
    title: 'Add a retry budget to the run dispatcher',
    body: 'The dispatcher retries without a budget; this caps it per routine. '.repeat(4),
    html_url: 'https://github.com/octo-org/hello-world/pull/1347',
    user: { login: 'octocat', id: 1, type: 'User' },
    head: { ref: 'retry-budget', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
    base: { ref: 'main', sha: 'c4295bd74fb0b4be4f6dbfd2db0fcbd3a3ec0a7e' },
    labels: [{ name: 'enhancement' }, { name: 'dispatcher' }],
    additions: 120,
    deletions: 14,
    changed_files: 5,
    created_at: '2026-11-27T12:00:00Z',
  },
  repository: { id: 1296269, full_name: 'octo-org/hello-world', private: false, default_branch: 'main' },
  sender: { login: 'octocat', id: 1, type: 'User' },
});

/** A typical filter: opened pull requests that are not drafts (true for PULL_REQUEST_BODY). */
export const TYPICAL_FILTER = 'body.action == "opened" && !body.pull_request.draft';

/** A typical schema: a dozen properties, required members, an enum and patterns (PULL_REQUEST_BODY conforms). */
export const TYPICAL_SCHEMA = {
  type: 'object',
  required: ['action', 'number', 'pull_request', 'repository', 'sender'],
  properties: {
    action: { enum: ['opened', 'closed', 'reopened', 'synchronize', 'edited', 'ready_for_review'] },
    number: { type: 'integer', minimum: 1 },
    pull_request: {
      type: 'object',
      required: ['title', 'draft', 'head', 'base'],
      properties: {
        title: { type: 'string', maxLength: 256 },
        draft: { type: 'boolean' },
        state: { enum: ['open', 'closed'] },
        html_url: { type: 'string', pattern: '^https://github\\.com/' },
        head: {
          type: 'object',
          required: ['sha'],
          properties: { ref: { type: 'string' }, sha: { type: 'string', pattern: '^[0-9a-f]{40}$' } },
        },
        base: { type: 'object', properties: { ref: { type: 'string' } } },
        labels: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    repository: {
      type: 'object',
      required: ['full_name'],
      properties: { full_name: { type: 'string', pattern: '^[\\w.-]+/[\\w.-]+$' }, private: { type: 'boolean' } },
    },
    sender: { type: 'object', properties: { login: { type: 'string' } } },
  },
};

/**
 * `rounds` pairs of `seconds` each at `connections`, the order within a pair alternating (plain
 * first, then ruled first, …). Returns each side's median and the medians of the pairs' ratios
 * (ruled / plain): above 1 for CPU per request and below 1 for requests/s mean the rules cost.
 */
export async function rulesCost({ seconds = 4, rounds = 4, connections = 16, log = () => undefined } = {}) {
  log(`routine rules: a webhook without and one with a typical filter and schema, ${rounds} alternating pairs of rounds`);
  const stack = await startStack({ withDispatcher: false, label: 'bench-rules' });
  try {
    const plain = await setUpWebhook(stack.baseUrl, stack.token, 'bench-plain');
    const ruled = await setUpWebhook(stack.baseUrl, stack.token, 'bench-ruled');
    await admin(stack.baseUrl, stack.token, 'PATCH', `/admin/routines/${ruled.routineId}/webhook`, {
      filter: TYPICAL_FILTER,
      payload_schema: TYPICAL_SCHEMA,
    });
    await assertRulesPass(stack, ruled);
    const request = (hook) => ({
      baseUrl: stack.baseUrl,
      path: hook.path,
      headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
      body: PULL_REQUEST_BODY,
      connections,
    });
    const measure = async (hook) => {
      const before = cpuSeconds(stack.ingress.child.pid);
      const result = await load({ ...request(hook), seconds });
      const cpuMs = (cpuSeconds(stack.ingress.child.pid) - before) * 1000;
      if (result.unexpected_status > 0 || result.errors > 0) throw new Error(`rules bench: ${JSON.stringify(result)} (expected only 202)`);
      return { rps: round(result.rps), p50_ms: result.p50_ms, p99_ms: result.p99_ms, cpu_ms_per_request: round3(cpuMs / result.requests) };
    };
    // A round's length of warm-up each: with 2 s, the first pair still measured the JIT (ratios 2–3 in it).
    await load({ ...request(plain), seconds });
    await load({ ...request(ruled), seconds });
    const pairs = [];
    for (let index = 0; index < rounds; index += 1) {
      const pair = {};
      for (const side of index % 2 === 0 ? ['plain', 'ruled'] : ['ruled', 'plain'])
        pair[side] = await measure(side === 'plain' ? plain : ruled);
      pair.rps_ratio = round3(pair.ruled.rps / pair.plain.rps);
      pair.cpu_ratio = round3(pair.ruled.cpu_ms_per_request / pair.plain.cpu_ms_per_request);
      pairs.push(pair);
      log(
        `  round ${index + 1}: without ${pair.plain.rps}/s, with rules ${pair.ruled.rps}/s (${pair.rps_ratio}); CPU per request ratio ${pair.cpu_ratio}`,
      );
    }
    const side = (name) => ({
      rps: round(median(pairs.map((pair) => pair[name].rps))),
      p50_ms: median(pairs.map((pair) => pair[name].p50_ms)),
      p99_ms: median(pairs.map((pair) => pair[name].p99_ms)),
      cpu_ms_per_request: round3(median(pairs.map((pair) => pair[name].cpu_ms_per_request))),
    });
    return {
      body_bytes: Buffer.byteLength(PULL_REQUEST_BODY),
      filter: TYPICAL_FILTER,
      schema_bytes: Buffer.byteLength(JSON.stringify(TYPICAL_SCHEMA)),
      connections,
      seconds_per_round: seconds,
      without_rules: side('plain'),
      with_rules: side('ruled'),
      rps_ratio: round3(median(pairs.map((pair) => pair.rps_ratio))),
      cpu_ratio: round3(median(pairs.map((pair) => pair.cpu_ratio))),
      pairs,
    };
  } finally {
    await stack.stop();
  }
}

/** The ruled webhook must do the same work as the plain one: its filter matches and its schema passes. */
async function assertRulesPass(stack, hook) {
  const trial = await admin(stack.baseUrl, stack.token, 'POST', `/admin/routines/${hook.routineId}/webhook/rules/try`, {
    sample: PULL_REQUEST_BODY,
  });
  if (trial.filter?.result !== 'matched' || trial.payload_schema?.result !== 'conforms') {
    throw new Error(`rules bench: the typical rules do not pass the typical payload: ${JSON.stringify(trial)}`);
  }
}

function round3(value) {
  return Math.round(value * 1000) / 1000;
}
