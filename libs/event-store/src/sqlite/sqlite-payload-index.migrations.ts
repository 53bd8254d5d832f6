import type Database from 'better-sqlite3';
import { createPayloadTable, payloadBucketOf, payloadRowId, payloadTable } from './sqlite-payload.records';

/** Index rows held in memory at once. */
const ROWS_PER_READ = 5_000;

interface IndexRow {
  readonly key: string;
  readonly format: string;
  readonly bucket: bigint;
  readonly row_id: bigint;
  readonly received_at: bigint;
  readonly expires_at: bigint;
  readonly removed_at: bigint | null;
  readonly removed_reason: string | null;
  readonly erasure_id: string | null;
}

/**
 * Schema step 5: payloads stored by step 3 (payload_index, and bodies in `payloads_<bucket>`
 * tables of (row_id, body)) are moved to step 4's layout, in the migration's transaction.
 *
 * A payload's key was the id its delivery's (or erasure's) stream is named by: it belongs to the
 * stream `<category><key>` of one of the store's categories, the first such stream with events.
 * Its first event gets `payload_row`; a kept body moves to its bucket's new table, a removal is
 * recorded in payload_removals. A payload whose stream is not found (none was ever written
 * without one) cannot be read any more, so it is not carried over: its bytes go with the old
 * tables. The old tables and payload_index are dropped; with secure_delete on, their pages are
 * zeroed.
 */
export function movePayloadsOutOfIndex(db: Database.Database): void {
  const standing = db.prepare<[], bigint>('SELECT bucket FROM payload_buckets WHERE dropped_at IS NULL').pluck().all();
  for (const bucket of standing) db.exec(`ALTER TABLE ${payloadTable(bucket)} RENAME TO ${oldTable(bucket)}`);
  const categories = db
    .prepare<[], string>('SELECT DISTINCT category FROM events WHERE category IS NOT NULL ORDER BY category')
    .pluck()
    .all();
  const firstEvent = db.prepare<[string], bigint>('SELECT seq FROM events WHERE stream_id = ? ORDER BY revision LIMIT 1').pluck();
  const point = db.prepare<[bigint, bigint]>('UPDATE events SET payload_row = ? WHERE seq = ?');
  const removal = db.prepare<[bigint, bigint, string, string | null]>(
    'INSERT INTO payload_removals (row_id, removed_at, reason, erasure_id) VALUES (?, ?, ?, ?)',
  );
  const used = new Set<string>();
  /** The new tables made, with their insert (a body copied from its old table). */
  const made = new Map<number, Database.Statement<[bigint, string, number, bigint, bigint]>>();
  let low = 0;
  for (const row of indexRows(db)) {
    const found = streamOf(row.key, categories, firstEvent);
    if (!found) continue;
    used.add(found.category);
    low += 1;
    const rowId = payloadRowId(Number(row.expires_at), low);
    point.run(rowId, found.seq);
    if (row.removed_at !== null) {
      removal.run(rowId, row.removed_at, row.removed_reason ?? 'expired', row.erasure_id);
      continue;
    }
    const bucket = payloadBucketOf(Number(row.expires_at));
    let copy = made.get(bucket);
    if (!copy) {
      createPayloadTable(db, bucket);
      copy = db.prepare(
        `INSERT INTO ${payloadTable(bucket)} (row_id, key, format, received_at, removed, body)
         SELECT ?, ?, ?, ?, 0, body FROM ${oldTable(row.bucket)} WHERE row_id = ?`,
      );
      made.set(bucket, copy);
    }
    copy.run(rowId, row.key, row.format === 'json' ? 0 : 1, row.received_at, row.row_id);
  }
  for (const bucket of standing) db.exec(`DROP TABLE ${oldTable(bucket)}`);
  db.exec('DROP TABLE payload_index');
  // A bucket whose payloads were all removed has no table now: it stands no more.
  const standsNoMore = db.prepare<[number, bigint]>('UPDATE payload_buckets SET dropped_at = ? WHERE bucket = ?');
  for (const bucket of standing) if (!made.has(Number(bucket))) standsNoMore.run(Date.now(), bucket);
  const category = db.prepare<[string]>('INSERT OR IGNORE INTO payload_categories (category) VALUES (?)');
  for (const name of used) category.run(name);
}

/** The index rows in expiry order, read a page at a time (no statement may stay open while others run). */
function* indexRows(db: Database.Database): Generator<IndexRow> {
  const first = db.prepare<[number], IndexRow>('SELECT * FROM payload_index ORDER BY expires_at, key LIMIT ?');
  const after = db.prepare<[bigint, string, number], IndexRow>(
    'SELECT * FROM payload_index WHERE (expires_at, key) > (?, ?) ORDER BY expires_at, key LIMIT ?',
  );
  let page = first.all(ROWS_PER_READ);
  while (page.length > 0) {
    yield* page;
    const last = page[page.length - 1];
    page = page.length < ROWS_PER_READ ? [] : after.all(last.expires_at, last.key, ROWS_PER_READ);
  }
}

function streamOf(
  key: string,
  categories: readonly string[],
  firstEvent: Database.Statement<[string], bigint>,
): { category: string; seq: bigint } | undefined {
  for (const category of categories) {
    const seq = firstEvent.get(`${category}${key}`);
    if (seq !== undefined) return { category, seq };
  }
  return undefined;
}

function oldTable(bucket: bigint): string {
  return `${payloadTable(bucket)}_v3`;
}
