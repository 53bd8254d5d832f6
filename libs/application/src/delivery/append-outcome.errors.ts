/**
 * The append of a delivery was sent but not confirmed (a deadline or a lost connection after the
 * request left): it may have been committed, or not. Unlike EventStoreUnavailableError ("nothing
 * was accepted"), callers must not be told nothing happened — only that a retry with the same
 * X-Service-Idempotency-Key is safe (it replays the delivery if there is one).
 */
export class AppendOutcomeUnknownError extends Error {
  constructor(
    readonly deliveryId: string,
    options?: { cause?: unknown },
  ) {
    super(`the append of delivery ${deliveryId} was not confirmed; it may or may not be durable`, options);
    this.name = 'AppendOutcomeUnknownError';
  }
}
