/**
 * What chaos.mjs reads from the store once the load is over: deliveries, runs, duplicates, orphans,
 * parks — and, with a short payload retention, the deliveries whose payload went before their run
 * (RunWithheld, parked payload_removed): they must never get a run, and every other must get one.
 * Read-only, so the services may still run.
 */
import Database from 'better-sqlite3';

/** A delivery is done when its run stream holds its run or the mark that it will never have one. */
const DONE = "r.type IN ('RunCreated', 'RunWithheld')";

/**
 * What the store says: deliveries, runs, duplicates, orphans and parks. Read-only, so the services
 * may still run; every count is read in one read transaction, so they all describe the same moment
 * (read one by one while the dispatcher still made runs, a count of runs could lag the check that
 * every delivery has one).
 */
export function storeCounts(storeFile) {
  const db = new Database(storeFile, { readonly: true });
  try {
    return db.transaction(() => countsOf(db))();
  } finally {
    db.close();
  }
}

function countsOf(db) {
  const one = (sql) => Number(db.prepare(sql).get().n);
  return {
    deliveries_accepted: one("SELECT count(*) AS n FROM events WHERE category = 'delivery-' AND type = 'DeliveryAccepted'"),
    runs_created: one("SELECT count(*) AS n FROM events WHERE category = 'run-' AND type = 'RunCreated'"),
    duplicate_runs: one(
      "SELECT coalesce(sum(c - 1), 0) AS n FROM (SELECT count(*) AS c FROM events WHERE category = 'run-' AND type = 'RunCreated' GROUP BY json_extract(data, '$.deliveryId'))",
    ),
    run_streams_with_more_than_one_created: one(
      "SELECT count(*) AS n FROM (SELECT stream_id FROM events WHERE category = 'run-' AND type = 'RunCreated' GROUP BY stream_id HAVING count(*) > 1)",
    ),
    // Through the delivery's stream id (indexed): a run whose delivery was never accepted, or names another run.
    orphan_runs: one(`SELECT count(*) AS n FROM events r WHERE r.category = 'run-' AND r.type = 'RunCreated' AND NOT EXISTS (
          SELECT 1 FROM events d WHERE d.stream_id = 'delivery-' || json_extract(r.data, '$.deliveryId') AND d.type = 'DeliveryAccepted'
           AND json_extract(d.data, '$.runId') = json_extract(r.data, '$.runId'))`),
    deliveries_without_run:
      one(`SELECT count(*) AS n FROM events d WHERE d.category = 'delivery-' AND d.type = 'DeliveryAccepted' AND NOT EXISTS (
          SELECT 1 FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND ${DONE})`),
    runs_withheld: one("SELECT count(*) AS n FROM events WHERE category = 'run-' AND type = 'RunWithheld'"),
    parked: one("SELECT count(*) AS n FROM events WHERE type = 'DispatchParked'"),
    parked_payload_removed: one(
      "SELECT count(*) AS n FROM events WHERE type = 'DispatchParked' AND json_extract(data, '$.error') LIKE 'payload_removed:%'",
    ),
    payloads_removed: one(
      "SELECT coalesce(sum(json_array_length(data, '$.deliveryIds')), 0) AS n FROM events WHERE type = 'PayloadsRemoved'",
    ),
    run_ids: new Set(
      db
        .prepare("SELECT json_extract(data, '$.runId') AS id FROM events WHERE category = 'run-' AND type = 'RunCreated'")
        .all()
        .map((row) => row.id),
    ),
    withheld_run_ids: new Set(
      db
        .prepare("SELECT json_extract(data, '$.runId') AS id FROM events WHERE category = 'run-' AND type = 'RunWithheld'")
        .all()
        .map((row) => row.id),
    ),
  };
}

/** Where the webhook's first hold began and where it was released (seq in $all), with the release's append time. */
export function holdWindow(db, webhookId) {
  const events = db
    .prepare(
      "SELECT seq, type, created_at FROM events WHERE stream_id = ? AND type IN ('WebhookHeld', 'WebhookReleased') ORDER BY revision",
    )
    .all(`webhook-${webhookId}`);
  const held = events.find((event) => event.type === 'WebhookHeld');
  const released = held && events.find((event) => event.type === 'WebhookReleased' && event.seq > held.seq);
  return { heldSeq: held?.seq, releasedSeq: released?.seq, releasedAt: released ? Number(released.created_at) : undefined };
}

/** The webhook's deliveries accepted in (after, before) in acceptance order, each with its run's first RunCreated (seq, time) and their count. */
export function deliveriesWithRuns(db, webhookId, after, before = Number.MAX_SAFE_INTEGER) {
  return db
    .prepare(
      `SELECT d.seq AS seq, json_extract(d.data, '$.runId') AS run_id,
         (SELECT min(r.seq) FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND r.type = 'RunCreated') AS run_seq,
         (SELECT min(r.created_at) FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND r.type = 'RunCreated') AS run_at,
         (SELECT count(*) FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND r.type = 'RunCreated') AS runs,
         (SELECT count(*) FROM events r WHERE r.stream_id = 'run-' || json_extract(d.data, '$.runId') AND r.type = 'RunWithheld') AS withheld
       FROM events d
       WHERE d.category = 'delivery-' AND d.type = 'DeliveryAccepted' AND d.seq > ? AND d.seq < ? AND json_extract(d.data, '$.webhookId') = ?
       ORDER BY d.seq`,
    )
    .all(after, before, webhookId);
}

/**
 * The hold/release figures from the store: the deliveries accepted while held (between WebhookHeld
 * and WebhookReleased in $all), their runs (each one, none before the release, in acceptance
 * order), how long the release took, and the held webhook's deliveries and runs overall.
 */
export function holdCounts(storeFile, webhookId) {
  const db = new Database(storeFile, { readonly: true });
  try {
    const { heldSeq, releasedSeq, releasedAt } = holdWindow(db, webhookId);
    const all = deliveriesWithRuns(db, webhookId, 0);
    const counts = {
      webhook_deliveries_accepted: all.length,
      webhook_runs_created: all.reduce((sum, row) => sum + row.runs, 0),
      webhook_runs_withheld: all.reduce((sum, row) => sum + row.withheld, 0),
      webhook_deliveries_without_run: all.filter((row) => row.runs === 0 && row.withheld === 0).length,
      held_and_released: heldSeq !== undefined && releasedSeq !== undefined,
    };
    if (!counts.held_and_released) return counts;
    const held = all.filter((row) => row.seq > heldSeq && row.seq < releasedSeq);
    const withRun = held.filter((row) => row.run_seq !== null);
    let outOfOrder = 0;
    for (let k = 1; k < withRun.length; k++) if (withRun[k].run_seq < withRun[k - 1].run_seq) outOfOrder++;
    const lastHeldRun = withRun.reduce((last, row) => Math.max(last, row.run_seq), 0);
    const lastHeldRunAt = withRun.reduce((last, row) => Math.max(last, Number(row.run_at)), 0);
    const later = all.filter((row) => row.seq > releasedSeq);
    return {
      ...counts,
      accepted_before_hold: all.filter((row) => row.seq < heldSeq).length,
      accepted_while_held: held.length,
      accepted_after_release: later.length,
      held_runs_created: held.reduce((sum, row) => sum + row.runs, 0),
      held_runs_withheld: held.reduce((sum, row) => sum + row.withheld, 0),
      held_without_run: held.filter((row) => row.runs === 0 && row.withheld === 0).length,
      held_runs_before_release: withRun.filter((row) => row.run_seq < releasedSeq).length,
      held_runs_out_of_acceptance_order: outOfOrder,
      release_to_last_held_run_ms: withRun.length > 0 ? lastHeldRunAt - releasedAt : 0,
      // By design ("later ones run at once"): deliveries accepted after the release whose run came before the last held one.
      later_runs_before_last_held_run: later.filter((row) => row.run_seq !== null && row.run_seq < lastHeldRun).length,
    };
  } finally {
    db.close();
  }
}
