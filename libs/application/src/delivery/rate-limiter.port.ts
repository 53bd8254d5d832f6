export interface RateLimitState {
  readonly allowed: boolean;
  /** Requests allowed per window. */
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets (at least 1 when not allowed). */
  readonly resetSeconds: number;
  readonly windowSeconds: number;
}

/** Per-key fixed-window limiter. Embedded: in memory; production: shared through Redis. */
export interface RateLimiter {
  consume(key: string): Promise<RateLimitState>;
}
