/** Nest injection tokens for values that are not classes. */
export const APP_CONFIG = Symbol('AppConfig');
export { CHECKPOINTS, CLOCK, EVENT_STORE, RANDOM, RATE_LIMITER, READ_MODELS } from '@wts/application';
