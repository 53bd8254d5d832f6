export * from './async.util';
export * from './retry-with-backoff';
