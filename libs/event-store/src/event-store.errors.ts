/**
 * Usage errors shared by the adapters. Not EventStoreUnavailableError: these are bugs in the
 * caller (a 500, never a 503 that invites a retry of the same request).
 */

/** An event id that is being appended already exists and the append is not an idempotent retry. */
export class DuplicateEventIdError extends Error {
  constructor(
    readonly eventId: string,
    readonly existingStreamId: string,
    readonly targetStreamId: string,
  ) {
    super(
      existingStreamId === targetStreamId
        ? `event id ${eventId} already exists in stream ${existingStreamId} at another place; not an idempotent retry`
        : `event id ${eventId} already exists in stream ${existingStreamId}; cannot append it to ${targetStreamId}`,
    );
    this.name = 'DuplicateEventIdError';
  }
}

/** The append request itself is malformed (bad event id, duplicate ids in one batch, non-JSON data). */
export class InvalidAppendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidAppendError';
  }
}

/**
 * The store refused the request for good: retrying the same request fails the same way (an
 * argument or position the server rejects, a deleted stream, an error the client cannot decode).
 * Not EventStoreUnavailableError: callers must not answer 503 and loop on it.
 */
export class EventStoreRejectedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreRejectedError';
  }
}
