import { ReadModelUnavailableError } from '../read-model.port';

/**
 * What reaches a caller from the PostgreSQL adapter: its own validation errors (RangeError,
 * InvalidCursorError) as they are, and every driver or server failure as
 * ReadModelUnavailableError (503) naming the operation. That includes connection failures
 * (ECONNREFUSED, connect/query timeouts, "Connection terminated", 57P01 admin shutdown, 08xxx),
 * statement timeouts (57014) and resource exhaustion (53xxx), and also an unexpected server error:
 * the read model is rebuilt from the event store, so the answer is "not now", never a 500 with
 * SQL in it.
 */
export function toUnavailable(operation: string, error: unknown): ReadModelUnavailableError {
  if (error instanceof ReadModelUnavailableError) return error;
  return new ReadModelUnavailableError(`read model ${operation} failed: ${describePgError(error)}`, { cause: error });
}

/** The SQLSTATE or errno when there is one, then the message (never the query's parameters). */
export function describePgError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describePgError).join('; ');
  }
  if (typeof error !== 'object' || error === null) return String(error);
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' ? `${code}: ${text}` : text;
}
