import { Streams, type ErasureEvent, type ErasureSelection } from '@wts/contracts';
import { foldErasure, isWellFormedId, type ErasureState } from '@wts/domain';
import type { EventStore, RecordedEvent } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';

/**
 * The answer of POST /admin/erasures and GET /admin/erasures/{id} (and the CLI's `erase --json`),
 * exactly as DESIGN.md fixes it: why an erasure failed is on the operator's log and the CLI's stderr.
 */
export interface ErasureView {
  readonly erasure_id: string;
  readonly status: 'running' | 'done' | 'failed';
  /** Payloads the selection matched so far (kept ones: a payload already gone is not selected again). */
  readonly selected: number;
  /** Payloads this erasure removed so far. */
  readonly erased: number;
  readonly requested_at: string;
  readonly finished_at: string | null;
  /** By when the last copy on a Kafka topic is gone; null without Kafka (embedded) or while running. */
  readonly kafka_copies_expire_by: string | null;
}

/**
 * By when Kafka's copies of payloads erased by an erasure that ended at `finishedAt` are gone (the
 * topics' retention after the end: every copy was written before it); absent without Kafka.
 */
export type KafkaCopiesExpiry = (finishedAt: Date) => Date | null;

/** An erasure's stream, read and folded: the state, and the request event's own position and the stream's revision. */
export interface StoredErasure {
  readonly state: ErasureState;
  readonly requested: RecordedEvent;
  /** The revision of the stream's last event: the expected revision of the next append. */
  readonly revision: bigint;
}

/** Reads an erasure's stream; undefined for an id that is not an era_ id or names no erasure. */
export async function readErasure(store: EventStore, erasureId: string): Promise<StoredErasure | undefined> {
  if (!isWellFormedId('erasure', erasureId)) return undefined;
  const recorded = await store.readStream(Streams.erasure(erasureId));
  const state = foldErasure(recorded.map((event) => asEvent<ErasureEvent>(event)));
  const requested = recorded[0];
  if (!state || !requested) return undefined;
  return { state, requested, revision: recorded[recorded.length - 1].revision };
}

export function toErasureView(state: ErasureState, kafkaCopiesExpireBy?: KafkaCopiesExpiry): ErasureView {
  const finished = state.finished;
  return {
    erasure_id: state.erasureId,
    status: finished?.status ?? 'running',
    selected: state.selected,
    erased: state.erased,
    requested_at: state.requestedAt,
    finished_at: finished?.at ?? null,
    kafka_copies_expire_by: finished && kafkaCopiesExpireBy ? (kafkaCopiesExpireBy(new Date(finished.at))?.toISOString() ?? null) : null,
  };
}

/** Where structured selectors are answered: the read model's deliveries (ReadModelStore.erasureCandidates). */
export interface ErasureCandidateSource {
  /**
   * One window of the deliveries whose payload is still kept, in a fixed order after `after` (null:
   * from the start), at most `limit` of them read (`scanned`): the ids of those that match every
   * structured selector of `selection` (`containsDigest` is not looked at; possibly none); `next`
   * is null on the last window.
   */
  erasureCandidates(
    selection: ErasureSelection,
    after: string | null,
    limit: number,
  ): Promise<{ readonly deliveryIds: readonly string[]; readonly scanned: number; readonly next: string | null }>;
}
