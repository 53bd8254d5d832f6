import type { SerializedEvent } from '../append.validation';
import { DuplicateEventIdError, InvalidAppendError } from '../event-store.errors';
import { EventStoreUnavailableError, type ExpectedRevision } from '../event-store.port';
import type { PayloadAttachment, PayloadRemoval } from '../payload-store.port';
import type { AppendOutcome } from './sqlite-append.transaction';

/** What the main thread asks of the writer thread (structured-cloned: bigints included). */
export type WriterRequest =
  | {
      readonly id: number;
      readonly op: 'append';
      readonly streamId: string;
      readonly events: readonly SerializedEvent[];
      readonly expected: ExpectedRevision;
      /** Stored in the append's savepoint if and only if its events are inserted. */
      readonly payload?: PayloadAttachment;
    }
  | { readonly id: number; readonly op: 'remove_payloads'; readonly keys: readonly string[]; readonly removal: PayloadRemoval }
  /** Moves the buckets' sweep frontiers (reading at most `maxRows`), then drops up to `maxDrops` tables whose hour ended by `now` and that keep no payload. */
  | {
      readonly id: number;
      readonly op: 'settle_payload_buckets';
      readonly now: number;
      readonly maxDrops: number;
      readonly maxRows: number;
    }
  /** One wal_checkpoint(TRUNCATE), run between batches, never inside a transaction. */
  | { readonly id: number; readonly op: 'checkpoint_truncate' }
  | {
      readonly id: number;
      readonly op: 'checkpoint';
      readonly name: string;
      readonly commit: bigint;
      readonly prepare: bigint;
      readonly at: number;
    };

/** What wal_checkpoint(TRUNCATE) answered: busy 0 and log 0 when the WAL is empty on disk. */
export interface TruncateOutcome {
  readonly busy: number;
  readonly log: number;
}

/** An append's outcome; a count (payloads removed, bucket tables dropped); a checkpoint's; null for a checkpoint save. */
export type WriterOutcome = AppendOutcome | number | TruncateOutcome | null;

export type WriterReply =
  | { readonly id: number; readonly ok: true; readonly outcome: WriterOutcome }
  | { readonly id: number; readonly ok: false; readonly error: WriterError };

/** Sent once per commit, before its replies: how many requests shared it and how long it took. */
export interface CommitReport {
  readonly kind: 'commit';
  readonly requests: number;
  readonly ms: number;
}

/** An error crossing the thread boundary as data, rebuilt as the same class on the other side. */
export type WriterError =
  | { readonly kind: 'duplicate_event_id'; readonly eventId: string; readonly existingStreamId: string; readonly targetStreamId: string }
  | { readonly kind: 'invalid_append'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly message: string }
  | { readonly kind: 'other'; readonly name: string; readonly message: string };

export interface WriterOptions {
  readonly filePath: string;
  readonly busyTimeoutMs: number;
  /** At most this many requests share one transaction (and one fsync). */
  readonly maxBatch: number;
}

export function toWriterError(error: unknown): WriterError {
  if (error instanceof DuplicateEventIdError) {
    return {
      kind: 'duplicate_event_id',
      eventId: error.eventId,
      existingStreamId: error.existingStreamId,
      targetStreamId: error.targetStreamId,
    };
  }
  if (error instanceof InvalidAppendError) return { kind: 'invalid_append', message: error.message };
  if (error instanceof EventStoreUnavailableError) return { kind: 'unavailable', message: error.message };
  return error instanceof Error
    ? { kind: 'other', name: error.name, message: error.message }
    : { kind: 'other', name: 'Error', message: String(error) };
}

export function fromWriterError(error: WriterError): Error {
  switch (error.kind) {
    case 'duplicate_event_id':
      return new DuplicateEventIdError(error.eventId, error.existingStreamId, error.targetStreamId);
    case 'invalid_append':
      return new InvalidAppendError(error.message);
    case 'unavailable':
      return new EventStoreUnavailableError(error.message);
    default: {
      const rebuilt = new Error(error.message);
      rebuilt.name = error.name;
      return rebuilt;
    }
  }
}
