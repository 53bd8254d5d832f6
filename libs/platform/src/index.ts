export * from './tokens';
export * from './event-store.factory';
export * from './logger.options';
export * from './memory-rate-limiter.adapter';
export * from './redis-rate-limiter.adapter';
export * from './rate-limiter.factory';
export * from './service.logger';
export * from './supervisor.watch';
