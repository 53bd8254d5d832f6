/** Time and randomness come in through ports so use cases stay testable. */
export interface Clock {
  now(): Date;
}

export interface RandomSource {
  bytes(count: number): Buffer;
  uuid(): string;
}
