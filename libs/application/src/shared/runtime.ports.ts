/** Time and randomness come in through ports so use cases stay testable. */
export interface Clock {
  now(): Date;
}

export interface RandomSource {
  bytes(count: number): Buffer;
  uuid(): string;
}

export const CLOCK = Symbol('Clock');
export const RANDOM = Symbol('RandomSource');
export const EVENT_STORE = Symbol('EventStore');
export const RATE_LIMITER = Symbol('RateLimiter');
export const CHECKPOINTS = Symbol('CheckpointStore');
export const READ_MODELS = Symbol('ReadModelStore');
