#!/usr/bin/env node
/**
 * A/B of the public endpoint between two builds, alternated in one run: each round starts one
 * build's stack (ingress + dispatcher, embedded default, fresh DATA_DIR, on 127.0.0.1), measures
 * 202s/s at each number of connections with autocannon (bench-kit's load), stops it, then the
 * other's; the order flips every round so drift on a shared machine falls on both. Prints one
 * JSON line per measurement and a summary (median requests/s and p99 per build and connections).
 *
 *   node scripts/bench/ab-ingress.mjs --a /work/wt-base --b /work/main --rounds 3 --seconds 5 [--alone]
 *
 * --alone: the ingress without the dispatcher, so nothing else contends for the store's write lock
 * or the CPU (what bench.mjs's ingress / Fastify ratio measures).
 *
 * Each directory must hold a built checkout (dist/ and scripts/bench/bench-kit.mjs).
 */
import { join } from 'node:path';
import { BODY, median } from './bench-kit.mjs';
import { numbers, positiveInteger, readOptions, text } from './command-line.mjs';

const options = readOptions(
  process.argv.slice(2),
  { a: undefined, b: undefined, rounds: 3, seconds: 5, connections: [1, 16, 64], alone: false },
  { a: text, b: text, rounds: positiveInteger, seconds: positiveInteger, connections: numbers, alone: true },
);
if (!options.a || !options.b) throw new Error('--a and --b name the two checkouts');

const builds = { a: options.a, b: options.b };
const results = [];
for (let round = 0; round < options.rounds; round += 1) {
  const order = round % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
  for (const name of order) {
    // Each build's own bench kit starts its own dist/.
    const kit = await import(join(builds[name], 'scripts', 'bench', 'bench-kit.mjs'));
    const stack = await kit.startStack({ label: `ab-${name}`, withDispatcher: !options.alone });
    try {
      const hook = await kit.setUpWebhook(stack.baseUrl, stack.token, `ab-${name}`);
      const headers = { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' };
      for (const connections of options.connections) {
        const run = await kit.load({ baseUrl: stack.baseUrl, path: hook.path, headers, body: BODY, connections, seconds: options.seconds });
        const line = { round, build: name, connections, rps: Math.round(run.rps), p99_ms: run.p99_ms, unexpected: run.unexpected_status };
        results.push(line);
        process.stdout.write(`${JSON.stringify(line)}\n`);
      }
    } finally {
      await stack.stop();
    }
  }
}
const summary = {};
for (const name of ['a', 'b']) {
  for (const connections of options.connections) {
    const mine = results.filter((r) => r.build === name && r.connections === connections);
    summary[`${name}@${connections}`] = { rps: median(mine.map((r) => r.rps)), p99_ms: median(mine.map((r) => r.p99_ms)) };
  }
}
process.stdout.write(`${JSON.stringify({ a: builds.a, b: builds.b, summary })}\n`);
