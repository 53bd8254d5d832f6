import type { Event } from './event.contract';

/**
 * Payloads removed from the payload store, one event per batch (at most 1,000 deliveries), on
 * `payload_removal-<uuid>`, appended before the payloads are overwritten (a crash in between leaves
 * them kept, found again and removed by the next sweep or the erasure's resume: the event may then
 * be recorded twice, which projections take as the same fact). The record of each delivery stays.
 */
export type PayloadsRemoved = Event<
  'PayloadsRemoved',
  {
    readonly reason: 'expired' | 'erased';
    /** The erasure that removed them (null when expired). */
    readonly erasureId: string | null;
    readonly removedAt: string;
    readonly deliveryIds: readonly string[];
  }
>;

/** The selection of an erasure as recorded: `contains` only as its SHA-256 digest (it is personal data). */
export interface ErasureSelection {
  readonly deliveryIds?: readonly string[];
  readonly routineId?: string;
  readonly triggerAccount?: string;
  readonly receivedAfter?: string;
  readonly receivedBefore?: string;
  /** SHA-256 (hex) of the lower-cased search string. */
  readonly containsDigest?: string;
}

/** On `erasure-<era_id>`: an operator asked for payloads to be erased. */
export type ErasureRequested = Event<
  'ErasureRequested',
  { readonly erasureId: string; readonly selection: ErasureSelection; readonly requestedAt: string; readonly requestedBy: string }
>;

/** On `erasure-<era_id>`: a window of the erasure done, durable — the job resumes after it. */
export type ErasureProgressed = Event<
  'ErasureProgressed',
  {
    readonly erasureId: string;
    readonly cursor: string | null;
    readonly scanned: number;
    readonly selected: number;
    readonly erased: number;
  }
>;

/** On `erasure-<era_id>`: the erasure ended; `done` only once no erased byte is left in the store's files. */
export type ErasureFinished = Event<
  'ErasureFinished',
  {
    readonly erasureId: string;
    readonly status: 'done' | 'failed';
    readonly selected: number;
    readonly erased: number;
    readonly finishedAt: string;
    readonly error?: string;
  }
>;

export type ErasureEvent = ErasureRequested | ErasureProgressed | ErasureFinished;
export type PayloadEvent = PayloadsRemoved;
