import type { RateLimiter, RateLimitState } from '@wts/application';
import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { toState } from './memory-rate-limiter.adapter';

/** Called with a human-readable line: once when an outage starts, once when Redis is back. */
export type RateLimiterWarning = (message: string) => void;

export interface RedisRateLimiterOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). Never logged. */
  readonly url: string;
  /** Requests allowed per key and window. */
  readonly points: number;
  /** Fixed-window length; 60 in production, shorter in tests. */
  readonly durationSeconds?: number;
  /** Redis key prefix; keys are `<prefix>:<key>`. */
  readonly keyPrefix?: string;
  readonly onWarning?: RateLimiterWarning;
  /** Overrides of the client options below (tests). */
  readonly redisOptions?: Partial<RedisOptions>;
}

export const REDIS_RATE_LIMIT_KEY_PREFIX = 'wts:rl';

/**
 * Client options for a limiter that must never hold a request up: no offline queue (a command
 * sent while disconnected fails at once instead of waiting for a reconnect), short connect and
 * command timeouts, one retry per request, and reconnection in the background with back-off.
 */
export const RATE_LIMITER_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  connectTimeout: 1_000,
  commandTimeout: 250,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  // How long close() waits for a socket to end before destroying it (ioredis default: 2 s).
  disconnectTimeout: 500,
};

/**
 * Per-key fixed windows shared by every ingress replica through Redis (rate-limiter-flexible's
 * atomic Lua script — SET NX EX, INCRBY, PTTL — on `wts:rl:<key>`).
 *
 * When Redis is unreachable, slow or goes away, each call falls back to an in-memory insurance
 * limiter with the same points and window: deliveries stay limited, per replica (the effective
 * limit is replicas × limit while Redis is down), and are never rejected because of Redis.
 * A warning is reported once per outage, and once when Redis answers again; counts are not
 * copied between the two stores, so the first window after a switch may allow a little extra.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly durationSeconds: number;
  private readonly client: Redis;
  private readonly limiter: RateLimiterRedis;
  private readonly insurance: RateLimiterMemory;
  private readonly onWarning: RateLimiterWarning;
  /** Bumped whenever a call is answered from memory: a call that saw no bump used Redis. */
  private fallbacks = 0;
  private degraded = false;
  private startingUp = true;
  private lastError = 'not connected';
  private closed = false;

  constructor(private readonly options: RedisRateLimiterOptions) {
    this.durationSeconds = options.durationSeconds ?? 60;
    this.onWarning = options.onWarning ?? (() => undefined);
    // ioredis is loaded when REDIS_URL chooses it: the embedded default never spends its start-up time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, typed by the import above
    const { default: RedisClient } = require('ioredis') as { default: typeof Redis };
    this.client = new RedisClient(options.url, { ...RATE_LIMITER_REDIS_OPTIONS, ...options.redisOptions });
    // ioredis emits an 'error' per failed (re)connection attempt; without a listener it prints
    // each one. The limiter reports the outage once instead.
    this.client.on('error', (error: Error) => {
      this.lastError = error.message;
      this.startingUp = false;
      this.markDegraded();
    });
    this.client.on('ready', () => {
      this.startingUp = false;
      this.markRecovered();
    });
    const onFallback = (): void => {
      this.fallbacks += 1;
      // While the first connection is still being made, an answer from memory is expected and
      // says nothing yet; the 'ready' or 'error' that follows settles it.
      if (!this.startingUp) this.markDegraded();
    };
    this.insurance = new InsuranceMemoryLimiter(
      {
        points: options.points,
        duration: this.durationSeconds,
        keyPrefix: `${options.keyPrefix ?? REDIS_RATE_LIMIT_KEY_PREFIX}:insurance`,
      },
      onFallback,
    );
    this.limiter = new RateLimiterRedis({
      storeClient: this.client,
      points: options.points,
      duration: this.durationSeconds,
      keyPrefix: options.keyPrefix ?? REDIS_RATE_LIMIT_KEY_PREFIX,
      rejectIfRedisNotReady: true,
      insuranceLimiter: this.insurance,
    });
  }

  async consume(key: string): Promise<RateLimitState> {
    const fallbacksBefore = this.fallbacks;
    try {
      const res = await this.limiter.consume(key);
      this.noteAnsweredByRedis(fallbacksBefore);
      return this.state(res, true);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        this.noteAnsweredByRedis(fallbacksBefore);
        return this.state(rejection, false);
      }
      // Not expected with an insurance limiter in place; still, Redis must never turn into a 5xx.
      this.lastError = rejection instanceof Error ? rejection.message : String(rejection);
      return this.consumeFromMemory(key);
    }
  }

  /** True while the Redis connection is up and ready for commands. */
  get isConnected(): boolean {
    return this.client.status === 'ready';
  }

  /** True while calls are answered from the per-replica memory limiter. */
  get isDegraded(): boolean {
    return this.degraded;
  }

  /** Health: resolves when Redis answers a PING (no offline queue: fails at once while disconnected). */
  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.status === 'end') return;
    if (this.client.status !== 'ready') {
      this.client.disconnect(); // also stops reconnection attempts
      return;
    }
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  private async consumeFromMemory(key: string): Promise<RateLimitState> {
    try {
      return this.state(await this.insurance.consume(key), true);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.state(rejection, false);
      throw rejection;
    }
  }

  private noteAnsweredByRedis(fallbacksBefore: number): void {
    // Recovers from outages that never dropped the connection (command timeouts).
    if (this.degraded && this.fallbacks === fallbacksBefore && this.client.status === 'ready') this.markRecovered();
  }

  private markDegraded(): void {
    if (this.degraded || this.closed) return;
    this.degraded = true;
    // A connected client only fails a call by timing out (Redis stalled) or by a Redis error reply.
    const reason =
      this.client.status === 'ready' ? `no answer within ${this.client.options.commandTimeout ?? 0} ms or an error reply` : this.lastError;
    this.onWarning(
      `rate limits: Redis unavailable (${reason}); limiting per replica in memory until it is back ` +
        `(${this.options.points} per ${this.durationSeconds} s per replica, so up to replicas × that in total)`,
    );
  }

  private markRecovered(): void {
    if (!this.degraded || this.closed) return;
    this.degraded = false;
    this.onWarning('rate limits: Redis is reachable again; limits are shared across replicas');
  }

  private state(res: RateLimiterRes, allowed: boolean): RateLimitState {
    return { ...toState(res, allowed, this.options.points), windowSeconds: this.durationSeconds };
  }
}

/** The insurance limiter: a plain memory limiter that reports each time it answers. */
class InsuranceMemoryLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(key: string | number, pointsToConsume?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(key, pointsToConsume, options);
  }
}
