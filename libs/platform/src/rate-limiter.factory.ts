import type { RateLimiter } from '@wts/application';
import type { AppConfig } from '@wts/config';
import { MemoryRateLimiter } from './memory-rate-limiter.adapter';
import { RedisRateLimiter, type RateLimiterWarning } from './redis-rate-limiter.adapter';

/** A rate limiter with the connections it owns: close it on shutdown. */
export interface ClosableRateLimiter extends RateLimiter {
  /** For the startup log line, e.g. "Redis (shared across replicas)". Never contains credentials. */
  readonly description: string;
  close(): Promise<void>;
  /** Readiness: Redis answers; undefined for the in-memory limiter (nothing to depend on). */
  readonly ping?: () => Promise<void>;
}

/**
 * Redis-backed limits shared across ingress replicas when REDIS_URL is set, else in-memory limits
 * of this process (the embedded default). `onWarning` hears about Redis outages and recoveries;
 * during an outage deliveries are limited per replica instead of being refused.
 */
export function createRateLimiter(config: AppConfig, onWarning: RateLimiterWarning): ClosableRateLimiter {
  const points = config.limits.rateLimitPerMinute;
  if (config.redis.url) {
    const limiter = new RedisRateLimiter({ url: config.redis.url, points, onWarning });
    return {
      description: 'Redis (shared across replicas; per replica in memory while Redis is down)',
      consume: (key) => limiter.consume(key),
      close: () => limiter.close(),
      ping: () => limiter.ping(),
    };
  }
  const limiter = new MemoryRateLimiter(points);
  return {
    description: 'in memory (this process only)',
    consume: (key) => limiter.consume(key),
    close: async () => undefined,
  };
}
