/**
 * POST → run created, read from the store afterwards: each DeliveryAccepted's commit time against
 * its RunCreated's (both stamped by the store's writer when committed, in ms). Opens the SQLite
 * file read-only, so the services can keep running.
 */
import Database from 'better-sqlite3';

/** Per accepted delivery received in [fromMs, toMs): ms until its run was committed (missing runs counted apart). */
export function deliveryToRunLatencies(storeFile, fromMs, toMs) {
  const db = new Database(storeFile, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT d.created_at AS accepted, r.created_at AS created
           FROM events d
           LEFT JOIN events r ON r.stream_id = 'run-' || json_extract(d.data, '$.runId')
          WHERE d.category = 'delivery-' AND d.type = 'DeliveryAccepted' AND d.created_at >= ? AND d.created_at < ?`,
      )
      .all(fromMs, toMs);
    const latencies = [];
    let missing = 0;
    for (const row of rows) {
      if (row.created === null) missing += 1;
      else latencies.push(Number(row.created) - Number(row.accepted));
    }
    return { deliveries: rows.length, missing, latencies };
  } finally {
    db.close();
  }
}

/** Runs committed per second between the first and the last run of the store. */
export function runsPerSecond(storeFile) {
  const db = new Database(storeFile, { readonly: true });
  try {
    const row = db
      .prepare("SELECT count(*) AS runs, min(created_at) AS first, max(created_at) AS last FROM events WHERE category = 'run-'")
      .get();
    const seconds = Math.max(0.001, (Number(row.last) - Number(row.first)) / 1000);
    return { runs: Number(row.runs), seconds, perSecond: Math.round(Number(row.runs) / seconds) };
  } finally {
    db.close();
  }
}

export function countRuns(storeFile) {
  const db = new Database(storeFile, { readonly: true });
  try {
    return Number(db.prepare("SELECT count(*) AS n FROM events WHERE category = 'run-'").get().n);
  } finally {
    db.close();
  }
}

export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
