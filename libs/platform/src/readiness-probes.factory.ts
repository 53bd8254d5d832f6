import type { RateLimiter } from '@wts/application';
import type { AppConfig } from '@wts/config';
import type { EventStore } from '@wts/event-store';
import { kafkaReadinessCheck } from '@wts/messaging';
import type { ReadinessCheck } from '@wts/observability';
import type { ReadModelStore } from '@wts/read-models';

export interface ReadinessDependencies {
  readonly config: AppConfig;
  readonly store: EventStore;
  readonly readModels: ReadModelStore;
  /** The ingress's limiter: checked when it has a server behind it (REDIS_URL). */
  readonly rateLimiter?: RateLimiter & { readonly ping?: () => Promise<void> };
  /** Names this service's Kafka client (the health check's own connection). */
  readonly service: string;
}

/** What readiness covers: each dependency this service was configured with, and nothing else. */
export function readinessChecks(deps: ReadinessDependencies): ReadinessCheck[] {
  const { config, store, readModels, rateLimiter } = deps;
  const checks: ReadinessCheck[] = [
    { name: 'event_store', check: () => store.ping() },
    { name: config.database.url ? 'postgresql' : 'read_models', check: () => readModels.ping() },
  ];
  if (config.kafka) checks.push(kafkaReadinessCheck(config.kafka, deps.service));
  const pingRedis = rateLimiter?.ping;
  if (config.redis.url && pingRedis) checks.push({ name: 'redis', check: () => pingRedis() });
  return checks;
}
