import type { RateLimitState } from '@wts/application';
import { eventually } from '@wts/testing';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter.adapter';
import { freePort } from '../../../test/support/service-processes';

/**
 * Against the real Redis of this machine (REDIS_URL, default redis://127.0.0.1:6379), plus a
 * second redis-server started and stopped by the tests themselves for the outage cases.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLOSED_PORT_URL = 'redis://127.0.0.1:1';

const opened: RedisRateLimiter[] = [];

function limiter(options: Partial<RedisRateLimiterOptions> & { points: number }): RedisRateLimiter {
  // Closing a client whose connection already failed leaves ioredis' disconnect timer running for
  // disconnectTimeout (the limiter's 500 ms): at the end of the run that held the jest worker past
  // its exit. The tests close at once instead; nothing here measures that timeout.
  const redisOptions = { disconnectTimeout: 20, ...options.redisOptions };
  const created = new RedisRateLimiter({ url: REDIS_URL, ...options, redisOptions });
  opened.push(created);
  return created;
}

function uniquePrefix(): string {
  return `wts:rl:test:${randomUUID()}`;
}

async function ready(subject: RedisRateLimiter): Promise<void> {
  // The first call may be answered from memory while the connection is still being made.
  await eventually(() => subject.isConnected, 5_000, 'the connection to Redis', 25);
}

/**
 * "At once" means without waiting for Redis to come back (reconnection takes seconds, and forever
 * while it is down): generous, so that a loaded machine does not fail it, far below that wait.
 */
const AT_ONCE_MS = 2_500;

/** ioredis' reconnection back-off, counting the attempts: evidence that the outage went on. */
function countingRetries(): { readonly attempts: () => number; readonly redisOptions: RedisRateLimiterOptions['redisOptions'] } {
  let attempts = 0;
  return {
    attempts: () => attempts,
    redisOptions: {
      retryStrategy: (attempt: number) => {
        attempts = attempt;
        return Math.min(attempt * 200, 2_000);
      },
    },
  };
}

async function timed(call: () => Promise<RateLimitState>): Promise<{ state: RateLimitState; ms: number }> {
  const started = performance.now();
  const state = await call();
  return { state, ms: performance.now() - started };
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
});

beforeAll(async () => {
  const probe = new RedisRateLimiter({ url: REDIS_URL, points: 1, keyPrefix: uniquePrefix() });
  try {
    await ready(probe);
  } catch {
    throw new Error(
      `no Redis answers at ${REDIS_URL}, so this suite cannot run: start one (redis-server --daemonize yes --port 6379; npm test does it when run as root) or set REDIS_URL`,
    );
  } finally {
    await probe.close();
  }
}, 15_000);

/**
 * The production command timeout (250 ms) is short so that a slow Redis never holds a request up;
 * on a loaded machine one command may take that long, and that call is answered from memory, as
 * designed (tested below). Tests of the shared count in Redis use this one: a slow answer must
 * still come from Redis.
 */
function patientLimiter(options: Partial<RedisRateLimiterOptions> & { points: number }): RedisRateLimiter {
  return limiter({ ...options, redisOptions: { commandTimeout: 5_000, ...options.redisOptions } });
}

describe('RedisRateLimiter against a real Redis', () => {
  it('shares one count between two replicas: N allowed in total, the N+1th refused by either', async () => {
    const keyPrefix = uniquePrefix();
    const replicaA = patientLimiter({ keyPrefix, points: 5 });
    const replicaB = patientLimiter({ keyPrefix, points: 5 });
    await Promise.all([ready(replicaA), ready(replicaB)]);

    const states: RateLimitState[] = [];
    for (let i = 0; i < 5; i += 1) states.push(await (i % 2 === 0 ? replicaA : replicaB).consume('whk_shared'));

    expect(states.map((s) => s.allowed)).toEqual([true, true, true, true, true]);
    expect(states.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0]);
    for (const state of states) {
      expect(state).toMatchObject({ limit: 5, windowSeconds: 60 });
      expect(state.resetSeconds).toBeGreaterThanOrEqual(0);
      expect(state.resetSeconds).toBeLessThanOrEqual(60);
    }

    const refusedByA = await replicaA.consume('whk_shared');
    const refusedByB = await replicaB.consume('whk_shared');
    for (const refused of [refusedByA, refusedByB]) {
      expect(refused).toMatchObject({ allowed: false, limit: 5, remaining: 0, windowSeconds: 60 });
      expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(refused.resetSeconds).toBeLessThanOrEqual(60);
    }
    expect(replicaA.isDegraded || replicaB.isDegraded).toBe(false);
  });

  it('counts concurrent calls from both replicas atomically', async () => {
    const keyPrefix = uniquePrefix();
    const replicaA = patientLimiter({ keyPrefix, points: 20 });
    const replicaB = patientLimiter({ keyPrefix, points: 20 });
    await Promise.all([ready(replicaA), ready(replicaB)]);

    const states = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? replicaA : replicaB).consume('whk_burst')));

    expect(states.filter((s) => s.allowed)).toHaveLength(20);
    expect(states.filter((s) => !s.allowed)).toHaveLength(30);
  });

  it('keeps keys (webhooks) apart', async () => {
    const subject = patientLimiter({ keyPrefix: uniquePrefix(), points: 1 });
    await ready(subject);

    expect((await subject.consume('whk_a')).allowed).toBe(true);
    expect((await subject.consume('whk_a')).allowed).toBe(false);
    expect((await subject.consume('whk_b')).allowed).toBe(true);
  });

  it('opens a new window when the fixed window ends', async () => {
    const keyPrefix = uniquePrefix();
    const replicaA = patientLimiter({ keyPrefix, points: 2, durationSeconds: 1 });
    const replicaB = patientLimiter({ keyPrefix, points: 2, durationSeconds: 1 });
    await Promise.all([ready(replicaA), ready(replicaB)]);

    await replicaA.consume('whk_window');
    await replicaB.consume('whk_window');
    const refused = await replicaA.consume('whk_window');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, windowSeconds: 1 });
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(0);
    expect(refused.resetSeconds).toBeLessThanOrEqual(1);

    // Refused until the window ends (however long the machine takes to get there), then a fresh count.
    const next = await eventually(
      async () => {
        const answer = await replicaB.consume('whk_window');
        return answer.allowed ? answer : undefined;
      },
      10_000,
      'the window to end',
      0,
    );
    expect(next).toMatchObject({ allowed: true, remaining: 1, windowSeconds: 1 });
  });

  it('writes its counters under the wts:rl prefix by default', async () => {
    const subject = patientLimiter({ points: 1000 });
    await ready(subject);
    const key = `whk_${randomUUID()}`;

    await subject.consume(key);

    const raw = execFileSync('redis-cli', ['-u', REDIS_URL, 'GET', `wts:rl:${key}`])
      .toString()
      .trim();
    expect(raw).toBe('1');
    execFileSync('redis-cli', ['-u', REDIS_URL, 'DEL', `wts:rl:${key}`]);
  });
});

describe('RedisRateLimiter when Redis is down', () => {
  it('answers at once and still limits, per replica in memory, when Redis cannot be reached', async () => {
    const warnings: string[] = [];
    const retries = countingRetries();
    const subject = limiter({
      url: CLOSED_PORT_URL,
      keyPrefix: uniquePrefix(),
      points: 3,
      onWarning: (m) => warnings.push(m),
      redisOptions: retries.redisOptions,
    });

    const results = [];
    for (let i = 0; i < 5; i += 1) results.push(await timed(() => subject.consume('whk_down')));

    for (const { ms } of results) expect(ms).toBeLessThan(AT_ONCE_MS);
    expect(results.map(({ state }) => state.allowed)).toEqual([true, true, true, false, false]);
    expect(results.map(({ state }) => state.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(results[3]!.state.resetSeconds).toBeGreaterThanOrEqual(1);

    await eventually(() => warnings.length > 0, 5_000, 'a warning', 25);
    for (let i = 0; i < 5; i += 1) await subject.consume('whk_down');
    // Evidence, not a pause: three more reconnection attempts failed after the warning.
    const attemptsAtWarning = retries.attempts();
    await eventually(() => retries.attempts() >= attemptsAtWarning + 3, 10_000, 'three more reconnection attempts', 25);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Redis unavailable .*per replica/);
    expect(warnings[0]).not.toContain('127.0.0.1:1/');
    expect(subject.isDegraded).toBe(true);
  });

  describe('with a Redis that goes away mid-test', () => {
    let port = 0;
    let dir = '';

    const startServer = (): void => {
      execFileSync('redis-server', [
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--pidfile',
        join(dir, 'redis.pid'),
        '--logfile',
        join(dir, 'redis.log'),
      ]);
    };
    const cli = (...args: string[]): string =>
      execFileSync('redis-cli', ['-p', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
        .toString()
        .trim();
    const isUp = (): boolean => {
      try {
        return cli('ping') === 'PONG';
      } catch {
        return false;
      }
    };

    beforeEach(async () => {
      port = await freePort();
      dir = mkdtempSync(join(tmpdir(), 'wts-redis-'));
      startServer();
      await eventually(isUp, 5_000, 'Redis to be up', 25);
    });

    afterEach(() => {
      if (isUp()) cli('shutdown', 'nosave');
      rmSync(dir, { recursive: true, force: true });
    });

    it('falls back to memory without throwing, warns once, and shares limits again once Redis is back', async () => {
      const warnings: string[] = [];
      const retries = countingRetries();
      const subject = limiter({
        url: `redis://127.0.0.1:${port}`,
        keyPrefix: uniquePrefix(),
        points: 4,
        onWarning: (m) => warnings.push(m),
        redisOptions: retries.redisOptions,
      });
      await ready(subject);

      expect(await subject.consume('whk_mid')).toMatchObject({ allowed: true, remaining: 3 });
      expect(await subject.consume('whk_mid')).toMatchObject({ allowed: true, remaining: 2 });
      expect(warnings).toEqual([]);

      cli('shutdown', 'nosave');
      await eventually(() => !isUp(), 5_000, 'Redis to be down', 25);

      // The memory window starts empty: counts are not carried over (availability over strictness).
      const during = [];
      for (let i = 0; i < 6; i += 1) during.push(await timed(() => subject.consume('whk_mid')));
      for (const { ms } of during) expect(ms).toBeLessThan(AT_ONCE_MS);
      expect(during.map(({ state }) => state.allowed)).toEqual([true, true, true, true, false, false]);
      expect(subject.isDegraded).toBe(true);
      // Evidence, not a pause: two reconnection attempts failed meanwhile, and still one warning.
      await eventually(() => retries.attempts() >= 2, 10_000, 'two reconnection attempts', 25);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/Redis unavailable/);

      startServer();
      await eventually(isUp, 5_000, 'Redis to be up', 25);
      await eventually(() => !subject.isDegraded, 6_000, 'the limiter back on Redis', 25);
      expect(warnings).toHaveLength(2);
      expect(warnings[1]).toMatch(/reachable again/);
      // A fresh server: the shared count starts over.
      expect(await subject.consume('whk_mid')).toMatchObject({ allowed: true, remaining: 3 });
    });

    it('falls back when Redis stops answering (command timeout) and recovers when it answers again', async () => {
      const warnings: string[] = [];
      const subject = limiter({
        url: `redis://127.0.0.1:${port}`,
        keyPrefix: uniquePrefix(),
        points: 10,
        onWarning: (m) => warnings.push(m),
      });
      await ready(subject);
      expect(await subject.consume('whk_slow')).toMatchObject({ allowed: true, remaining: 9 });

      cli('client', 'pause', '1500', 'ALL');
      const { state, ms } = await timed(() => subject.consume('whk_slow'));

      expect(ms).toBeLessThan(AT_ONCE_MS);
      expect(state).toMatchObject({ allowed: true, remaining: 9 }); // answered from memory
      expect(subject.isDegraded).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/no answer within 250 ms/);

      // Answered from memory while paused; back on Redis once the pause (1.5 s) is over.
      await eventually(
        async () => {
          await subject.consume('whk_slow');
          return !subject.isDegraded;
        },
        10_000,
        'the limiter back on Redis after the pause',
        25,
      );
      expect(warnings[1]).toMatch(/reachable again/);
    });
  });
});
