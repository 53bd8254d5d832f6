/**
 * Which @eventstore/db-client failures mean "the store could not be reached or failed" (callers
 * answer 503 and may retry), which are permanent refusals (never retried), and which are the
 * caller's own bugs. Pure: unit-tested without a server.
 */
import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  InvalidArgumentError,
  MaxAppendSizeExceededError,
  NotFoundError,
  NotLeaderError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  convertToCommandError,
  isCommandError,
} from '@eventstore/db-client';
import { DuplicateEventIdError, EventStoreRejectedError, InvalidAppendError } from '../event-store.errors';
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
  10, // ABORTED (EventStoreDB's server-side timeout; "Consumer too slow" on live subscriptions)
  12, // UNIMPLEMENTED (not an EventStoreDB gRPC endpoint, e.g. a proxy answering 404)
  13, // INTERNAL
  14, // UNAVAILABLE
  15, // DATA_LOSS
  16, // UNAUTHENTICATED
]);

/** Codes for requests the server understood and refused: the same request fails again. */
const PERMANENT_GRPC_CODES: ReadonlySet<number> = new Set([
  3, // INVALID_ARGUMENT (e.g. KurrentDB's BadRequest)
  5, // NOT_FOUND
  6, // ALREADY_EXISTS
  9, // FAILED_PRECONDITION
  11, // OUT_OF_RANGE (e.g. InvalidPosition: a position not on a record boundary)
]);

/** INTERNAL and DATA_LOSS: 6.2.1 keeps using the channel that produced them; the adapter drops it. */
const RECONNECT_GRPC_CODES: ReadonlySet<number> = new Set([13, 15]);

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

/** The server's `exception` trailer that names an event too large for MaxAppendEventSize (KurrentDB 25.1). */
const EVENT_SIZE_EXCEPTION = 'maximum-append-event-size-exceeded';

/**
 * The numeric gRPC status of an error: its own `code`, or that of the ServiceError a CommandError
 * wraps (`_raw` in 6.2.1).
 */
export function grpcCodeOf(error: unknown): number | undefined {
  for (const candidate of [error, rawOf(error)]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/** The `exception` trailer the server set (EventStoreDB names its RPC exceptions there). */
export function serverExceptionOf(error: unknown): string | undefined {
  for (const candidate of [error, rawOf(error)]) {
    const metadata = (candidate as { metadata?: { getMap?: () => Record<string, unknown> } } | undefined)?.metadata;
    const exception = typeof metadata?.getMap === 'function' ? metadata.getMap().exception : undefined;
    if (exception !== undefined && exception !== null) return String(exception);
  }
  return undefined;
}

function rawOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { _raw?: unknown })._raw : undefined;
}

/** Whether the channel that produced this error must be dropped (6.2.1 would keep it). */
export function needsNewChannel(error: unknown): boolean {
  const code = grpcCodeOf(error);
  return code !== undefined && RECONNECT_GRPC_CODES.has(code);
}

/**
 * A refusal that a retry cannot fix: an argument the server rejects, a deleted stream, an RPC
 * exception 6.2.1 does not know (it turns those into UnknownError, and the batch-append path into
 * "Could not recognize …").
 */
export function isPermanentError(error: unknown): boolean {
  if (error instanceof EventStoreRejectedError) return true;
  if (error instanceof InvalidArgumentError || error instanceof NotFoundError) return true;
  if (error instanceof Error && isCommandError(error) && !(error instanceof UnknownError)) return false;
  if (error instanceof UnknownError) {
    if (serverExceptionOf(error) !== undefined) return true;
    if (error.message.startsWith('Could not recognize')) return true;
  }
  const code = grpcCodeOf(error);
  return code !== undefined && PERMANENT_GRPC_CODES.has(code);
}

export function isUnavailableError(error: unknown): boolean {
  if (error instanceof EventStoreUnavailableError) return true;
  if (isPermanentError(error)) return false;
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

function isEventSizeRefusal(error: unknown): boolean {
  if (serverExceptionOf(error) === EVENT_SIZE_EXCEPTION) return true;
  return error instanceof UnknownError && /MaximumAppendEventSizeExceeded|maximum-append-event-size/i.test(error.message);
}

/**
 * The error a port method should throw for a client failure: EventStoreUnavailableError for
 * availability problems, InvalidAppendError for an oversized append, EventStoreRejectedError for
 * a permanent refusal, anything else unchanged. WrongExpectedVersionError and StreamNotFoundError
 * are values, handled before this.
 */
export function toStoreError(operation: string, error: unknown): unknown {
  if (
    error instanceof EventStoreUnavailableError ||
    error instanceof EventStoreRejectedError ||
    error instanceof InvalidAppendError ||
    error instanceof DuplicateEventIdError
  ) {
    return error;
  }
  const converted = error instanceof Error ? convertToCommandError(error) : error;
  if (converted instanceof MaxAppendSizeExceededError) {
    return new InvalidAppendError(`append exceeds EventStoreDB's maximum append size of ${converted.maxAppendSize} bytes`, {
      cause: error,
    });
  }
  if (isEventSizeRefusal(converted)) {
    return new InvalidAppendError(`an event exceeds the server's maximum event size (MaxAppendEventSize): ${describe(converted)}`, {
      cause: error,
    });
  }
  if (isPermanentError(converted)) {
    const exception = serverExceptionOf(converted);
    return new EventStoreRejectedError(
      `EventStoreDB refused ${operation}${exception ? ` (${exception})` : ''}: ${describe(converted)}; not retryable`,
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
