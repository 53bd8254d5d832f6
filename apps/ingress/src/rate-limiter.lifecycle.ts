import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { RATE_LIMITER, type RateLimiter } from '@wts/application';

/** Closes the limiter's connections (Redis) when the app shuts down; the memory one has none. */
@Injectable()
export class RateLimiterLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiter & { close?: () => Promise<void> }) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close?.();
  }
}
