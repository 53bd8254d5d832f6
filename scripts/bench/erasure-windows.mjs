#!/usr/bin/env node
/**
 * How long an erasure's read-model windows take: N kept deliveries written straight into a fresh
 * SQLite read-model file (migrated by the store from dist/), then every window of three structured
 * selections read through SqliteReadModelStore.erasureCandidates, 10,000 kept rows a window as the
 * erasure job asks. Prints one JSON line per selection: windows, matches, total and per-window ms.
 *
 *   npm run build && node scripts/bench/erasure-windows.mjs [--deliveries 1000000]
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { positiveInteger, readOptions } from './command-line.mjs';
import { REPO } from './bench-kit.mjs';

const { SqliteReadModelStore } = createRequire(import.meta.url)(join(REPO, 'dist/libs/read-models/src/sqlite/sqlite-read-model.store.js'));
const { deliveries } = readOptions(process.argv.slice(2), { deliveries: 1_000_000 }, { deliveries: positiveInteger });
const WINDOW = 10_000;
const START = Date.parse('2026-11-01T00:00:00.000Z');
const at = (ms) => new Date(START + ms).toISOString();

const dir = mkdtempSync(join(tmpdir(), 'wts-erasure-windows-'));
try {
  const file = join(dir, 'readmodels.sqlite');
  await SqliteReadModelStore.open(file).close();
  const db = new Database(file);
  const insert = db.prepare(`INSERT INTO rm_deliveries (delivery_id, routine_id, webhook_id, run_id, received_at,
      trigger_account_id, trigger_account_email, content_type, idempotency_key, commit_pos, prepare_pos,
      payload_state, payload_expires_at, payload_removed_at, trigger_account_email_folded)
    VALUES (?, ?, 'whk_bench', ?, ?, 'acc_bench', ?, 'application/json', NULL, ?, ?, 'kept', ?, NULL, ?)`);
  // One delivery a millisecond; one in 1,000 of a rare routine, 5,000 accounts in turn.
  db.transaction(() => {
    for (let i = 0; i < deliveries; i += 1) {
      const email = `user${i % 5000}@example.com`;
      insert.run(
        `dlv_${String(i).padStart(9, '0')}`,
        i % 1000 === 7 ? 'rtn_rare' : 'rtn_common',
        `run_${i}`,
        at(i),
        email,
        i + 1,
        i + 1,
        at(i + 2_592_000_000),
        email,
      );
    }
  })();
  db.close();
  const store = SqliteReadModelStore.open(file);
  const selections = [
    ['a routine with 0.1 % of the kept payloads', { routineId: 'rtn_rare' }],
    ['an account with 0.02 %', { triggerAccount: 'user42@example.com' }],
    ['that routine in a tenth of the time range', { routineId: 'rtn_rare', receivedAfter: at(0), receivedBefore: at(deliveries / 10) }],
  ];
  for (const [label, selection] of selections) {
    let after = null;
    let windows = 0;
    let matches = 0;
    let slowest = 0;
    const started = performance.now();
    do {
      const from = performance.now();
      const page = await store.erasureCandidates(selection, after, WINDOW);
      slowest = Math.max(slowest, performance.now() - from);
      windows += 1;
      matches += page.deliveryIds.length;
      after = page.next;
    } while (after !== null);
    const ms = performance.now() - started;
    const round = (value) => Math.round(value * 10) / 10;
    process.stdout.write(
      `${JSON.stringify({ kept: deliveries, selection: label, windows, matches, total_ms: Math.round(ms), per_window_ms: round(ms / windows), slowest_window_ms: round(slowest) })}\n`,
    );
  }
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
