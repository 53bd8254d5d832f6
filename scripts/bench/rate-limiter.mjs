#!/usr/bin/env node
/* global performance, setTimeout */
/**
 * Cost of one rate-limit decision: the in-memory limiter against the Redis one (a Lua script per
 * call, one round trip), measured in-process on the compiled adapters in dist/. Bounded: a fixed
 * number of calls, keys under a unique prefix that expires within a minute.
 *
 *   npm run build
 *   node scripts/bench/rate-limiter.mjs [--calls 20000] [--concurrency 32] [--redis redis://127.0.0.1:6379] [--dist DIR]
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(' ')
    .split('--')
    .filter(Boolean)
    .map((part) => part.trim().split(/\s+/)),
);
const calls = Math.min(Number(args.calls ?? 20_000), 1_000_000);
const concurrency = Math.min(Number(args.concurrency ?? 32), 1024);
const redisUrl = args.redis ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dist = resolve(args.dist ?? join(REPO, 'dist'));

const require = createRequire(import.meta.url);
const { MemoryRateLimiter } = require(join(dist, 'libs', 'platform', 'src', 'memory-rate-limiter.adapter.js'));
const { RedisRateLimiter } = require(join(dist, 'libs', 'platform', 'src', 'redis-rate-limiter.adapter.js'));

async function measure(name, limiter, parallel) {
  const keys = Array.from({ length: 100 }, (_, i) => `whk_bench_${i}`);
  const latencies = new Float64Array(calls);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < calls; index = next++) {
      const t0 = performance.now();
      await limiter.consume(keys[index % keys.length]);
      latencies[index] = performance.now() - t0;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: parallel }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  const pct = (p) => sorted[Math.ceil((p / 100) * sorted.length) - 1].toFixed(3);
  process.stdout.write(
    `${name.padEnd(8)} ${String(parallel).padStart(3)} concurrent  ${(calls / seconds).toFixed(0).padStart(7)} calls/s  ` +
      `p50 ${pct(50)} ms  p99 ${pct(99)} ms\n`,
  );
}

const memory = new MemoryRateLimiter(1_000_000);
const redis = new RedisRateLimiter({ url: redisUrl, points: 1_000_000, keyPrefix: `wts:rl:bench:${randomUUID()}` });
try {
  for (let waited = 0; !redis.isConnected; waited += 50) {
    if (waited > 5_000) throw new Error(`Redis at ${redisUrl} is not answering`);
    await new Promise((done) => setTimeout(done, 50));
  }
  for (const parallel of [1, concurrency]) {
    await measure('memory', memory, parallel);
    await measure('redis', redis, parallel);
  }
  if (redis.isDegraded) process.stderr.write('warning: Redis degraded during the run; figures are not valid\n');
} finally {
  await redis.close();
}
