/**
 * The soak's look at a running stack's store, after each window (read-only connections, short
 * read transactions): sizes of events.sqlite and readmodels.sqlite with their WALs, deliveries and
 * runs, and where the payload part stands — payloads kept (in the bucket tables) and removed (payload_removals), the bucket
 * tables still standing and their pages (dbstat), and the free pages a dropped bucket left.
 */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const round1 = (value) => Math.round(value * 10) / 10;
const size = (file) => (existsSync(file) ? statSync(file).size : 0);

/** The payload part of the event store, or null on a store without payload_removals (before schema 5). */
function payloadPart(db) {
  const hasRemovals = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'payload_removals'").get();
  if (!hasRemovals) return null;
  const standing = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'payloads\\_%' ESCAPE '\\'").pluck().all();
  let kept = 0;
  for (const name of standing) kept += Number(db.prepare(`SELECT count(*) FROM ${name} WHERE removed = 0`).pluck().get());
  const counts = { kept, removed: db.prepare('SELECT count(*) FROM payload_removals').pluck().get() };
  let tableBytes = 0;
  try {
    // One table at a time (dbstat answers an equality on name without walking the other tables).
    const pages = db.prepare('SELECT sum(pgsize) AS bytes FROM dbstat WHERE name = ?').pluck();
    for (const name of standing) tableBytes += Number(pages.get(name) ?? 0);
  } catch {
    tableBytes = null; // a build without dbstat
  }
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  return {
    kept_payloads: Number(counts.kept),
    removed_payloads: Number(counts.removed),
    payload_tables: standing.length,
    payload_table_bytes: tableBytes,
    free_bytes: Number(db.pragma('freelist_count', { simple: true })) * pageSize,
  };
}

export function storeState(storeFile) {
  const readModelFile = join(dirname(storeFile), 'readmodels.sqlite');
  const storeBytes = size(storeFile) + size(`${storeFile}-wal`);
  const db = new Database(storeFile, { readonly: true });
  try {
    const one = (sql) => Number(db.prepare(sql).get().n);
    return {
      store_mib: round1(storeBytes / 1048576),
      store_bytes: storeBytes,
      wal_bytes: size(`${storeFile}-wal`),
      readmodels_bytes: size(readModelFile) + size(`${readModelFile}-wal`),
      deliveries: one("SELECT count(*) AS n FROM events WHERE category = 'delivery-' AND type = 'DeliveryAccepted'"),
      runs: one("SELECT count(*) AS n FROM events WHERE category = 'run-' AND type = 'RunCreated'"),
      without_run: one(`SELECT count(*) AS n FROM events d WHERE d.category = 'delivery-' AND d.type = 'DeliveryAccepted' AND NOT EXISTS (
          SELECT 1 FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND r.type = 'RunCreated')`),
      payloads: payloadPart(db),
    };
  } finally {
    db.close();
  }
}
