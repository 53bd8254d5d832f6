export * from './tokens';
export * from './event-store.factory';
export * from './logger.options';
export * from './memory-rate-limiter.adapter';
