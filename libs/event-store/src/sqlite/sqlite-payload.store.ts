import { assertPayloadRemoval } from '../payload-request.validation';
import type { PayloadRemoval, PayloadScanPage, PayloadStore, ReclaimReport, StoredPayload } from '../payload-store.port';
import { assertNonNegativeInteger, assertPositiveInteger } from '../store-options.validation';
import { SqlitePayloadReads, type PayloadRef } from './sqlite-payload-read.statements';
import { bucketOfRow, expiryOfRow } from './sqlite-payload.records';
import type { SqliteWriter } from './sqlite-writer.client';
import type { SqliteConnection } from './sqlite.connection';

export interface SqlitePayloadStoreOptions {
  /** How long reclaim() keeps trying to truncate the WAL while other connections still read an older snapshot. */
  readonly truncateWaitMs: number;
}

/** Keys bound to one lookup statement (as one JSON array). */
const KEYS_PER_LOOKUP = 500;
/**
 * The most payloads one scan() call looks at, whatever its limit: the call is one read transaction,
 * and a long one would hold off the WAL truncation that completes a removal.
 */
export const MAX_SCAN_WINDOW = 10_000;
/** Bucket tables dropped per writer transaction: a backlog of past hours never stalls the appends behind it. */
const DROPS_PER_COMMIT = 50;
/** Rows read per writer transaction to move the buckets' sweep frontiers (a few milliseconds). */
const FRONTIER_ROWS_PER_COMMIT = 20_000;
/** Between two truncation attempts while a reader holds an older snapshot (its read transactions are short). */
const TRUNCATE_RETRY_MS = 200;
const CURSOR = /^sp1\.(\d{1,18})\.(\d{1,19})$/;
/** Any UTF-16 unit above 0x7f (surrogates included): a character SQLite lower() does not fold. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The embedded store's payloads (docs/data-lifecycle-plan.md §1–2): bodies in per-expiry-hour
 * tables of the event store's file (sqlite-payload.records.ts), each found from its event's
 * payload_row. Reads run on the main thread's connection, each in one read transaction; removals,
 * frontier moves and drops go through the writer thread, so they share its group commit and are
 * serialized with the appends that store payloads.
 *
 * Removal is: overwrite in place with zeros (remove), drop whole bucket tables once their hour is
 * past and nothing in them is kept, then truncate the WAL (reclaim). Only then are the removed
 * bytes out of events.sqlite, its -wal and its -shm.
 */
export class SqlitePayloadStore implements PayloadStore {
  private readonly reads: SqlitePayloadReads;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly writer: SqliteWriter,
    private readonly options: SqlitePayloadStoreOptions,
  ) {
    this.reads = connection.use('prepare', (db) => new SqlitePayloadReads(db));
  }

  async get(keys: readonly string[]): Promise<ReadonlyMap<string, StoredPayload>> {
    const unique = [...new Set(keys)];
    const found = new Map<string, StoredPayload>();
    if (unique.length === 0) return found;
    this.connection.use('payload get', () =>
      this.reads.snapshot(() => {
        for (let start = 0; start < unique.length; start += KEYS_PER_LOOKUP) {
          this.lookUp(unique.slice(start, start + KEYS_PER_LOOKUP), found);
        }
      }),
    );
    return found;
  }

  async remove(keys: readonly string[], removal: PayloadRemoval): Promise<number> {
    assertPayloadRemoval(keys, removal);
    if (keys.length === 0) return 0;
    return this.writer.removePayloads([...keys], { reason: removal.reason, erasureId: removal.erasureId, at: removal.at });
  }

  async due(now: number, limit: number): Promise<readonly string[]> {
    assertNonNegativeInteger('payload due now', now);
    assertNonNegativeInteger('payload due limit', limit);
    if (limit === 0) return [];
    return this.connection.use('payload due', () => this.reads.due(now, limit));
  }

  /**
   * Walks the kept payloads by bucket, then row (the cursor is that place: "sp1.<bucket>.<row>",
   * opaque to callers), at most min(limit, MAX_SCAN_WINDOW) of them per call. An ASCII needle is
   * matched in SQL (lower() folds A–Z only, so a body's non-ASCII letters are compared as they
   * are); a needle with any other character falls back to JavaScript's toLowerCase() on each
   * decoded body (measured on 100k payloads of 182 B: 0.7M rows/s in SQL when few match, 0.15M
   * in JavaScript; on schema 5's layout 1.1M rows/s in SQL for 200k of the bench's body). A JSON body is matched on its text as received: a
   * character the sender spelled as a \u escape is matched as those six characters, not as the
   * character. A payload stored after the scan passed its place (a shorter retention's earlier
   * bucket) is not seen by that scan.
   */
  async scan(needle: string, options: { readonly cursor?: string; readonly limit: number }): Promise<PayloadScanPage> {
    if (typeof needle !== 'string' || needle.length === 0) throw new RangeError('payload scan needle must be a non-empty string');
    assertPositiveInteger('payload scan limit', options.limit);
    const window = Math.min(options.limit, MAX_SCAN_WINDOW);
    const lowered = needle.toLowerCase();
    const inSql = !NON_ASCII.test(lowered);
    let { bucket, rowId } = options.cursor === undefined ? { bucket: -1n, rowId: 0n } : parseScanCursor(options.cursor);
    return this.connection.use('payload scan', () =>
      this.reads.snapshot((): PayloadScanPage => {
        const matches: string[] = [];
        let scanned = 0;
        while (scanned < window) {
          const { kept, lastRowId } = bucket < 0n ? { kept: 0, lastRowId: null } : this.reads.window(bucket, rowId, window - scanned);
          if (lastRowId === null) {
            const next = this.reads.nextBucket(bucket);
            if (next === null) return { matches, scanned };
            [bucket, rowId] = [next, 0n];
            continue;
          }
          const first = rowId + 1n;
          [scanned, rowId] = [scanned + kept, lastRowId];
          const hits = inSql
            ? this.reads.matching(bucket, first, lastRowId, lowered)
            : this.reads.matchingInJs(bucket, first, lastRowId, lowered);
          matches.push(...hits);
        }
        const more = this.reads.window(bucket, rowId, 1).kept > 0 || this.reads.nextBucket(bucket) !== null;
        return more ? { matches, scanned, cursor: `sp1.${bucket}.${rowId}` } : { matches, scanned };
      }),
    );
  }

  /**
   * Moves the buckets' sweep frontiers and drops the bucket tables that are done with, then truncates the WAL, trying again every 200 ms
   * while another connection's read transaction still needs the frames (it would otherwise keep
   * the zeroed pages' previous versions in the WAL), until truncateWaitMs. `complete` is false when
   * the WAL could not be truncated in that time: the caller tries again later (nothing is lost by
   * trying again). A fixed interval, not a growing backoff: readers here are short, and the wait is
   * bounded by the removal's deadline.
   */
  async reclaim(now: number): Promise<ReclaimReport> {
    assertNonNegativeInteger('payload reclaim now', now);
    let released = 0;
    for (;;) {
      const dropped = await this.writer.settlePayloadBuckets(now, DROPS_PER_COMMIT, FRONTIER_ROWS_PER_COMMIT);
      released += dropped;
      if (dropped < DROPS_PER_COMMIT) break;
    }
    const deadline = Date.now() + this.options.truncateWaitMs;
    for (;;) {
      const { busy, log } = await this.writer.checkpointTruncate();
      // log -1: not a WAL file (an in-memory store): nothing to truncate.
      if (busy === 0 && log <= 0) return { complete: true, released };
      if (Date.now() >= deadline) return { complete: false, released };
      // A plain timer, not @wts/runtime's sleep: this file is also loaded in worker threads and child
      // processes that resolve relative imports only (testing/append-worker.js).
      await new Promise((resolve) => setTimeout(resolve, TRUNCATE_RETRY_MS));
    }
  }

  /** Looks up one chunk of keys (inside the caller's read transaction). */
  private lookUp(keys: readonly string[], found: Map<string, StoredPayload>): void {
    const keptByBucket = new Map<number, PayloadRef[]>();
    for (const ref of this.reads.refs(keys)) {
      if (ref.removed_at !== null) {
        found.set(ref.key, {
          state: 'removed',
          reason: ref.reason ?? 'expired',
          removedAt: Number(ref.removed_at),
          erasureId: ref.erasure_id,
        });
        continue;
      }
      const bucket = bucketOfRow(ref.row_id);
      const kept = keptByBucket.get(bucket) ?? [];
      kept.push(ref);
      keptByBucket.set(bucket, kept);
    }
    for (const [bucket, refs] of keptByBucket) {
      const bodies = this.reads.bodies(
        bucket,
        refs.map((ref) => ref.row_id),
      );
      for (const ref of refs) {
        const kept = bodies.get(ref.row_id);
        // The row and its removal record are read in one snapshot and written in one transaction.
        if (!kept) throw new Error(`payload ${ref.key} has no removal record but its body is missing (bucket ${bucket})`);
        found.set(ref.key, {
          state: 'kept',
          format: kept.format,
          text: kept.body.toString('utf8'),
          receivedAt: kept.receivedAt,
          expiresAt: expiryOfRow(ref.row_id),
        });
      }
    }
  }
}

function parseScanCursor(cursor: string): { bucket: bigint; rowId: bigint } {
  const match = CURSOR.exec(cursor);
  if (!match) throw new RangeError(`not a payload scan cursor of this store: ${cursor}`);
  return { bucket: BigInt(match[1]), rowId: BigInt(match[2]) };
}
