/**
 * README "rate limits on the real Redis", over HTTP: two ingress replicas on one store, both with
 * REDIS_URL (the machine's Redis, 127.0.0.1:6379 unless REDIS_URL says otherwise), share one count
 * per webhook — the request after the limit gets 429 from either replica, and the counter lives in
 * Redis under the webhook's key (webhook ids are random, so runs and checkouts never share a key).
 */
import { execFileSync } from 'node:child_process';
import { REDIS_RATE_LIMIT_KEY_PREFIX } from '@wts/platform';
import { eventually } from '@wts/testing';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PER_MINUTE = 4;

function redis(...args: string[]): string {
  return execFileSync('redis-cli', ['-u', REDIS_URL, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();
}

describe('public endpoint: rate limit through Redis, shared by two replicas (429)', () => {
  let a: IngressTestApp;
  let b: IngressTestApp;
  let hook: WebhookFixture;

  beforeAll(async () => {
    try {
      expect(redis('ping')).toBe('PONG');
    } catch {
      throw new Error(
        `no Redis answers at ${REDIS_URL}, so this suite cannot run: start one (redis-server --daemonize yes --port 6379; npm test does it when run as root) or set REDIS_URL`,
      );
    }
    const env = { REDIS_URL, WEBHOOK_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) };
    a = await IngressTestApp.start(env);
    b = await IngressTestApp.start(env, { dataDir: a.dataDir });
    hook = await a.setupWebhook();
  }, 30_000);

  afterAll(async () => {
    if (hook) redis('DEL', `${REDIS_RATE_LIMIT_KEY_PREFIX}:${hook.webhookId}`);
    await b?.close();
    await a?.close();
  });

  it('counts requests of both replicas in Redis: the one after the limit gets 429 from either', async () => {
    // The limiter answers from memory until its connection is up: wait until a request is counted in Redis.
    const key = `${REDIS_RATE_LIMIT_KEY_PREFIX}:${hook.webhookId}`;
    const first = await a.deliver(hook, { body: '{"data":0}' });
    expect(first.status).toBe(202);
    await eventually(async () => redis('GET', key) === '1', 5000, 'the first request counted in Redis');

    // b knows the webhook once its configuration has caught up (it reads the same store).
    const statuses = [202];
    for (let i = 1; i < PER_MINUTE; i++) {
      const replica = i % 2 === 1 ? b : a;
      statuses.push((await replica.deliver(hook, { body: JSON.stringify({ data: i }) })).status);
    }
    expect(statuses).toEqual([202, 202, 202, 202]);
    expect(redis('GET', key)).toBe(String(PER_MINUTE));

    for (const replica of [a, b]) {
      const limited = await replica.deliver(hook, { body: '{"data":"one too many"}' });
      expectProblem(limited, 429, 'rate_limited');
      expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(limited.headers.get('ratelimit-policy')).toMatch(new RegExp(`q=${PER_MINUTE}\\b`));
    }
    expect(await a.acceptedDeliveries(hook.routineId)).toHaveLength(PER_MINUTE);
  });
});
