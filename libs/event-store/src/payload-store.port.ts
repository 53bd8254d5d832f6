/**
 * The payload store: untrusted payloads kept apart from the events, so that one can be removed
 * (expired or erased) without rewriting history. A payload is written with the append that records
 * its delivery (AppendOptions.payload: same transaction on SQLite, appended just before on
 * EventStoreDB) and read back by its key (the delivery id). Removal is idempotent and final: a
 * removed payload is never `kept` again, and its bytes are overwritten, not merely unlinked.
 */

/** A payload as written: the text as received (JSON text keeps every digit; text is the decoded string). */
export interface PayloadAttachment {
  /**
   * The id the append's stream is named by: that stream must be `<category>-<key>` (the delivery
   * id of `delivery-<id>`; for an erasure's own search string, the erasure id of `erasure-<id>`),
   * so a store finds a payload through its stream. One key names one payload, across categories.
   */
  readonly key: string;
  /** The webhook it came in through ('' when none): selections and retention are per webhook. */
  readonly webhookId: string;
  readonly format: 'json' | 'text';
  readonly text: string;
  /** Epoch ms. */
  readonly receivedAt: number;
  /** Epoch ms: when the payload is removed as expired (fixed at acceptance). */
  readonly expiresAt: number;
}

export type PayloadRemovalReason = 'expired' | 'erased';

export type StoredPayload =
  | {
      readonly state: 'kept';
      readonly format: 'json' | 'text';
      readonly text: string;
      readonly receivedAt: number;
      readonly expiresAt: number;
    }
  | {
      readonly state: 'removed';
      readonly reason: PayloadRemovalReason;
      /** Epoch ms. */
      readonly removedAt: number;
      /** The erasure that removed it (null when expired). */
      readonly erasureId: string | null;
    };

export interface PayloadRemoval {
  readonly reason: PayloadRemovalReason;
  readonly erasureId: string | null;
  /** Epoch ms. */
  readonly at: number;
}

/** One window of a `contains` scan: the kept payloads that matched, how many were looked at, where to go on. */
export interface PayloadScanPage {
  readonly matches: readonly string[];
  readonly scanned: number;
  /** Absent when the scan has reached the end. */
  readonly cursor?: string;
}

/** What a reclaim did: store files rewritten so removed bytes are in none of them. */
export interface ReclaimReport {
  /** True when every removed byte is out of every file the store writes (SQLite: WAL truncated, dropped tables zeroed). */
  readonly complete: boolean;
  /** Bucket tables (SQLite) or streams (EventStoreDB) whose space was given back. */
  readonly released: number;
}

export interface PayloadStore {
  /** The payloads of these keys (a key with no payload is absent from the map). */
  get(keys: readonly string[]): Promise<ReadonlyMap<string, StoredPayload>>;
  /**
   * Removes the payloads of these keys (at most 1,000): their bytes overwritten in place and their
   * state recorded as removed. Keys already removed or without a payload are left alone: the
   * answer counts only those removed now.
   */
  remove(keys: readonly string[], removal: PayloadRemoval): Promise<number>;
  /** Kept payloads with expiresAt ≤ now, oldest expiry first, at most `limit`. */
  due(now: number, limit: number): Promise<readonly string[]>;
  /**
   * Kept payloads containing `needle` (compared lower-cased; the caller lower-cases it), a window
   * at a time in a fixed order: pass the answer's cursor to go on. At most `limit` payloads looked at.
   */
  scan(needle: string, options: { readonly cursor?: string; readonly limit: number }): Promise<PayloadScanPage>;
  /** Gives back the space of removed payloads and makes sure no removed byte is left in the store's files. */
  reclaim(now: number): Promise<ReclaimReport>;
}

/** Options of one append. */
export interface AppendOptions {
  /** Stored if and only if this append writes its events (a conflict or an idempotent retry stores nothing new). */
  readonly payload?: PayloadAttachment;
}
