import type { OnApplicationShutdown } from '@nestjs/common';
import type { RateLimiter } from '@wts/application';

/** Closes the limiter's connections (Redis) when the app shuts down; the memory one has none. */
export class RateLimiterLifecycle implements OnApplicationShutdown {
  constructor(private readonly limiter: RateLimiter & { close?: () => Promise<void> }) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close?.();
  }
}
