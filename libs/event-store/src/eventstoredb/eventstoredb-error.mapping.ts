/**
 * Which @eventstore/db-client failures mean "the store could not be reached or failed" (callers
 * answer 503 and may retry) and which are the caller's own bugs. Pure: unit-tested without a server.
 */
import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  convertToCommandError,
} from '@eventstore/db-client';
import { DuplicateEventIdError, InvalidAppendError } from '../event-store.errors';
import { EventStoreUnavailableError } from '../event-store.port';

/**
 * gRPC status codes (numeric, as on @grpc/grpc-js ServiceError.code) that mean the call did not
 * reach a working server, or the outcome is unknown. Some client paths (the server-features probe
 * that precedes every append) reject with the raw ServiceError instead of a CommandError.
 */
const UNAVAILABLE_GRPC_CODES: ReadonlySet<number> = new Set([
  1, // CANCELLED (by the server or a proxy)
  2, // UNKNOWN
  4, // DEADLINE_EXCEEDED
  7, // PERMISSION_DENIED (misconfigured credentials: the store is unusable)
  8, // RESOURCE_EXHAUSTED
  10, // ABORTED (EventStoreDB's server-side timeout)
  12, // UNIMPLEMENTED (not an EventStoreDB gRPC endpoint, e.g. a proxy answering 404)
  13, // INTERNAL
  14, // UNAVAILABLE
  16, // UNAUTHENTICATED
]);

/** Node socket errors, e.g. from gossip discovery over HTTP. */
const UNAVAILABLE_NODE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

export function isUnavailableError(error: unknown): boolean {
  if (error instanceof EventStoreUnavailableError) return true;
  if (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof NotLeaderError ||
    error instanceof CancelledError ||
    error instanceof UnknownError ||
    error instanceof AccessDeniedError
  ) {
    return true;
  }
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && UNAVAILABLE_GRPC_CODES.has(code)) return true;
  if (typeof code === 'string' && UNAVAILABLE_NODE_CODES.has(code)) return true;
  // Client/discovery.js: `throw new Error(\`Failed to discover after ${n} attempts.\`)`
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && message.startsWith('Failed to discover after');
}

/**
 * The error a port method should throw for a client failure: EventStoreUnavailableError for
 * availability problems, InvalidAppendError for an oversized append, anything else unchanged.
 * WrongExpectedVersionError and StreamNotFoundError are values, handled before this.
 */
export function toStoreError(operation: string, error: unknown): unknown {
  if (
    error instanceof EventStoreUnavailableError ||
    error instanceof InvalidAppendError ||
    error instanceof DuplicateEventIdError
  ) {
    return error;
  }
  const converted = error instanceof Error ? convertToCommandError(error) : error;
  if (converted instanceof MaxAppendSizeExceededError) {
    return new InvalidAppendError(
      `append exceeds EventStoreDB's maximum append size of ${converted.maxAppendSize} bytes`,
      { cause: error },
    );
  }
  if (isUnavailableError(converted)) {
    return new EventStoreUnavailableError(`EventStoreDB ${operation} failed: ${describe(converted)}`, { cause: error });
  }
  return converted;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
