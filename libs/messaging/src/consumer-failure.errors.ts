/**
 * The one error taxonomy of the Kafka consumer: a failed message is either retried in place
 * (transient: the store is down, the broker is away) or, when it can never succeed, parked on the
 * dead-letter topic with its error. Handlers throw (or Nest's RPC filters emit) a ConsumerFailure.
 */
export type FailureDisposition = 'retry' | 'park';

export interface ConsumerFailure {
  readonly disposition: FailureDisposition;
  /** Stable snake_case code, copied to the dead letter's `error-code` header. */
  readonly code: string;
  readonly message: string;
}

export class ConsumerFailureError extends Error implements ConsumerFailure {
  constructor(
    readonly disposition: FailureDisposition,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConsumerFailureError';
  }
}

export function isConsumerFailure(value: unknown): value is ConsumerFailure {
  const candidate = value as Partial<ConsumerFailure> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    (candidate.disposition === 'retry' || candidate.disposition === 'park') &&
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string'
  );
}

/**
 * Anything else (a bug, Nest's generic "Internal server error") is treated as possibly permanent:
 * retried a few times, then parked — never dropped, never blocking the partition forever.
 */
export function toConsumerFailure(error: unknown): ConsumerFailure {
  if (isConsumerFailure(error)) return { disposition: error.disposition, code: error.code, message: error.message };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : describeUnknown(error);
  return { disposition: 'park', code: 'handler_failed', message };
}

function describeUnknown(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return String(value);
  }
}
