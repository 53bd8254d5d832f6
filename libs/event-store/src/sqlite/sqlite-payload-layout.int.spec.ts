import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PayloadAttachment } from '../payload-store.port';
import { SqliteEventStore } from './sqlite-event-store.adapter';
import { KEPT_ROW_OF_KEY } from './sqlite-payload-read.statements';
import { PAYLOAD_BUCKET_MS } from './sqlite-payload.records';
import { SCHEMA_VERSION, migrate } from './sqlite-schema.migrations';

/**
 * The payload layout of schema 4–5 (sqlite-payload.records.ts): one b-tree written per payload,
 * bodies in expiry order whatever the retention, a sweep frontier per bucket, and the move of
 * step 3's payload_index into it.
 */
const HOUR = PAYLOAD_BUCKET_MS;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wts-payload-layout-'));
  dirs.push(dir);
  return join(dir, 'events.sqlite');
}

const event = (): { id: string; type: string; data: object; metadata: object } => ({ id: randomUUID(), type: 'T', data: {}, metadata: {} });
const payloadOf = (key: string, expiresAt: number, text = `text of ${key}`): PayloadAttachment => ({
  key,
  webhookId: 'wh',
  format: 'text',
  text,
  receivedAt: 1_000,
  expiresAt,
});

async function put(store: SqliteEventStore, key: string, expiresAt: number): Promise<void> {
  await store.append(`delivery-${key}`, [event()], 'no_stream', { payload: payloadOf(key, expiresAt) });
}

describe('SqlitePayloadStore layout', () => {
  it('lists due payloads in expiry order across retentions, whatever order they were stored in', async () => {
    const store = SqliteEventStore.open(tempFile());
    try {
      const base = 10 * HOUR;
      // A long retention's payload stored first, shorter ones after it, all expiring within one hour.
      await put(store, 'long', base + 3_000);
      await put(store, 'short', base + 1_000);
      await put(store, 'middle', base + 2_000);
      await put(store, 'next-hour', base + HOUR + 1);

      expect(await store.payloads().due(base + 1_999, 10)).toEqual(['short']);
      expect(await store.payloads().due(base + HOUR + 1, 10)).toEqual(['short', 'middle', 'long', 'next-hour']);
      expect(await store.payloads().due(base + HOUR + 1, 2)).toEqual(['short', 'middle']);
    } finally {
      await store.close();
    }
  });

  it('moves the sweep frontier past removed payloads, and still finds one stored behind it', async () => {
    const file = tempFile();
    const store = SqliteEventStore.open(file);
    const db = new Database(file, { readonly: true });
    const sweptTo = (): bigint => db.prepare('SELECT swept_to FROM payload_buckets').pluck().safeIntegers(true).get() as bigint;
    try {
      const base = 20 * HOUR;
      for (const [key, at] of [
        ['a', 1_000],
        ['b', 2_000],
        ['c', 3_000],
      ] as const)
        await put(store, key, base + at);
      const payloads = store.payloads();
      await payloads.remove(['a', 'b'], { reason: 'expired', erasureId: null, at: base + 2_000 });
      await payloads.reclaim(base + 2_000);
      expect(sweptTo()).toBeGreaterThan(0n);
      expect(await payloads.due(base + 2_500, 10)).toEqual([]);

      // Came in already expired (behind the frontier): the frontier moves back for it.
      await put(store, 'late', base + 1_500);
      expect(await payloads.due(base + 2_500, 10)).toEqual(['late']);
      await payloads.remove(['late'], { reason: 'expired', erasureId: null, at: base + 2_500 });
      await payloads.reclaim(base + 2_500);
      expect(await payloads.due(base + 3_000, 10)).toEqual(['c']);
    } finally {
      db.close();
      await store.close();
    }
  });

  it('finds a payload by its key through the events index, not by reading every event', () => {
    const file = tempFile();
    SqliteEventStore.open(file).close();
    const db = new Database(file, { readonly: true });
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${KEPT_ROW_OF_KEY}`)
        .all('k')
        .map((row) => (row as { detail: string }).detail);
      expect(plan.some((detail) => /SEARCH e USING INDEX sqlite_autoindex_events_\d \(stream_id=\?\)/.test(detail))).toBe(true);
      expect(plan.some((detail) => /SCAN e\b/.test(detail))).toBe(false);
    } finally {
      db.close();
    }
  });

  it('writes at most one more page for an append with a payload than for one without', async () => {
    const file = tempFile();
    const store = SqliteEventStore.open(file);
    try {
      const walBytes = (): number => statSync(`${file}-wal`).size;
      const base = 30 * HOUR;
      // The first payload of a category and of an hour writes their rows too: not measured.
      await put(store, 'first', base);
      await store.append(`other-${randomUUID()}`, [event()], 'no_stream');
      const pages: { with: number[]; without: number[] } = { with: [], without: [] };
      for (let index = 0; index < 5; index += 1) {
        let before = walBytes();
        await store.append(`other-${randomUUID()}`, [event()], 'no_stream');
        pages.without.push(walBytes() - before);
        before = walBytes();
        await put(store, randomUUID(), base + index);
        pages.with.push(walBytes() - before);
      }
      const frame = 4096 + 24;
      const most = (sizes: number[]): number => Math.max(...sizes) / frame;
      const least = (sizes: number[]): number => Math.min(...sizes) / frame;
      expect(most(pages.with) - least(pages.without)).toBeLessThanOrEqual(1);
    } finally {
      await store.close();
    }
  });
});

describe('schema step 5: payloads of step 3 moved out of payload_index', () => {
  it('carries kept bodies and removal records over, drops what no stream names, and leaves no old byte behind', async () => {
    const file = tempFile();
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.pragma('secure_delete = ON');
    migrate(old, 3);
    const bucket = 40;
    const expiresAt = bucket * HOUR + 5_000;
    old.exec(`CREATE TABLE payloads_${bucket} (row_id INTEGER PRIMARY KEY, body BLOB NOT NULL)`);
    old.prepare('INSERT INTO payload_buckets (bucket) VALUES (?)').run(bucket);
    const addEvent = old.prepare(
      "INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES (?, 0, ?, 'T', '{}', '{}', 1)",
    );
    const addBody = old.prepare(`INSERT INTO payloads_${bucket} (row_id, body) VALUES (?, ?)`);
    const addIndex = old.prepare(
      `INSERT INTO payload_index (key, webhook_id, format, bucket, row_id, received_at, expires_at, bytes, removed_at, removed_reason, erasure_id)
       VALUES (?, 'wh', ?, ?, ?, 7, ?, 0, ?, ?, ?)`,
    );
    const rows: [key: string, stream: string | null, body: string, removed: [number, string, string | null] | null][] = [
      ['dlv_kept', 'delivery-dlv_kept', '{"marker":"KEPTMARKER"}', null],
      ['era_search', 'erasure-era_search', 'searchmarker', null],
      ['dlv_erased', 'delivery-dlv_erased', '\0\0\0\0', [9, 'erased', 'era_x']],
      ['dlv_orphan', null, 'ORPHANMARKER', null],
    ];
    rows.forEach(([key, stream, body, removed], index) => {
      if (stream) addEvent.run(stream, randomUUID());
      addBody.run(index + 1, Buffer.from(body));
      addIndex.run(key, key === 'dlv_kept' ? 'json' : 'text', bucket, index + 1, expiresAt + index, ...(removed ?? [null, null, null]));
    });
    old.close();

    const store = SqliteEventStore.open(file);
    try {
      const found = await store.payloads().get(['dlv_kept', 'era_search', 'dlv_erased', 'dlv_orphan']);
      expect(found.get('dlv_kept')).toEqual({ state: 'kept', format: 'json', text: '{"marker":"KEPTMARKER"}', receivedAt: 7, expiresAt });
      expect(found.get('era_search')).toMatchObject({ state: 'kept', format: 'text', text: 'searchmarker', expiresAt: expiresAt + 1 });
      expect(found.get('dlv_erased')).toEqual({ state: 'removed', reason: 'erased', removedAt: 9, erasureId: 'era_x' });
      expect(found.has('dlv_orphan')).toBe(false);
      expect(await store.payloads().due(expiresAt + 10, 10)).toEqual(['dlv_kept', 'era_search']);
      expect((await store.payloads().scan('keptmarker', { limit: 10 })).matches).toEqual(['dlv_kept']);
      expect((await store.payloads().reclaim(0)).complete).toBe(true);
      const files = readdirSync(join(file, '..')).map((name) => readFileSync(join(file, '..', name)).toString('latin1'));
      expect(files.some((bytes) => bytes.includes('ORPHANMARKER'))).toBe(false);
      expect(files.some((bytes) => bytes.includes('KEPTMARKER'))).toBe(true);
    } finally {
      await store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'payload_index%' OR name LIKE '%\\_v3' ESCAPE '\\'").all()).toEqual(
        [],
      );
    } finally {
      db.close();
    }
  });
});
