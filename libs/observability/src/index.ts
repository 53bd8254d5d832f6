export * from './service.metrics';
export * from './health/readiness.check';
export * from './health/health.controller';
export * from './metrics.controller';
export * from './operations.module';
export * from './tracing/tracing';
export * from './tracing/traced-event-store';
