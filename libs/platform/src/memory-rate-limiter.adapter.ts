import type { RateLimiter, RateLimitState } from '@wts/application';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 60;

/** Fixed one-minute windows per key, in this process's memory (the embedded default). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly limiter: RateLimiterMemory;

  constructor(private readonly perMinute: number) {
    this.limiter = new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS });
  }

  async consume(key: string): Promise<RateLimitState> {
    try {
      return toState(await this.limiter.consume(key), true, this.perMinute);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return toState(rejection, false, this.perMinute);
      throw rejection;
    }
  }
}

export function toState(res: RateLimiterRes, allowed: boolean, limit: number): RateLimitState {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(res.msBeforeNext / 1000)),
    windowSeconds: WINDOW_SECONDS,
  };
}
