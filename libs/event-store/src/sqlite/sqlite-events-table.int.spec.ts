import Database from 'better-sqlite3';
import { readSqliteFile } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventToAppend } from '../event-store.port';
import { SqliteEventStore } from './sqlite-event-store.adapter';
import { SCHEMA_VERSION, migrate } from './sqlite-schema.migrations';

/**
 * Schema step 6: the events table of a store with no event yet is made without AUTOINCREMENT (no
 * sqlite_sequence row rewritten by every append); a store that holds events keeps its table.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wts-events-table-'));
  dirs.push(dir);
  return join(dir, 'events.sqlite');
}

const event = (): EventToAppend => ({ id: randomUUID(), type: 'T', data: {}, metadata: {} });
const FRAME = 4096 + 24;

/** A store at schema 5 that holds one event: what a deployment made before step 6 looks like. */
function storeOfStep5WithAnEvent(file: string): void {
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  migrate(old, 5);
  old
    .prepare(
      "INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES ('old-1', 0, ?, 'T', '{}', '{}', 1)",
    )
    .run(randomUUID());
  old.close();
}

function eventsTableSql(file: string): string {
  return readSqliteFile(file, (db) => (db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'events'").get() as { sql: string }).sql);
}

/** WAL frames written by each of `count` single-event appends, one commit each. */
async function framesPerAppend(store: SqliteEventStore, file: string, count: number): Promise<number[]> {
  const frames: number[] = [];
  await store.append(`warm-${randomUUID()}`, [event()], 'no_stream');
  for (let index = 0; index < count; index += 1) {
    const before = statSync(`${file}-wal`).size;
    await store.append(`stream-${randomUUID()}`, [event()], 'no_stream');
    frames.push((statSync(`${file}-wal`).size - before) / FRAME);
  }
  return frames;
}

describe('schema step 6: the events table without AUTOINCREMENT', () => {
  it('gives a new store an events table without AUTOINCREMENT, its indexes and seq in append order across reopens', async () => {
    const file = tempFile();
    let store = SqliteEventStore.open(file);
    try {
      await store.append('webhook-a', [event(), event()], 'no_stream');
      await store.close();
      store = SqliteEventStore.open(file);
      await store.append('delivery-b', [event()], 'no_stream');
      const all = await store.readAll({ limit: 10 });
      expect(all.map((recorded) => [recorded.streamId, recorded.position.commit])).toEqual([
        ['webhook-a', 1n],
        ['webhook-a', 2n],
        ['delivery-b', 3n],
      ]);
      expect((await store.readAll({ limit: 10, filter: { streamPrefixes: ['delivery-'] } })).map((e) => e.streamId)).toEqual([
        'delivery-b',
      ]);
    } finally {
      await store.close();
    }
    expect(eventsTableSql(file)).not.toMatch(/AUTOINCREMENT/i);
    readSqliteFile(file, (db) => {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").pluck().all();
      expect(indexes).toEqual(['events_by_category', 'sqlite_autoindex_events_1', 'sqlite_autoindex_events_2']);
      expect(db.prepare("SELECT count(*) FROM sqlite_sequence WHERE name = 'events'").pluck().get()).toBe(0);
      const columns = db.prepare('SELECT name FROM pragma_table_xinfo(?)').pluck().all('events');
      expect(columns).toEqual([
        'seq',
        'stream_id',
        'revision',
        'event_id',
        'type',
        'data',
        'metadata',
        'created_at',
        'category',
        'payload_row',
      ]);
    });
  });

  it('keeps the table of a store that holds events, which reads and appends on from its last seq', async () => {
    const file = tempFile();
    storeOfStep5WithAnEvent(file);
    const store = SqliteEventStore.open(file);
    try {
      await store.append('new-1', [event()], 'no_stream');
      expect((await store.readAll({ limit: 10 })).map((recorded) => [recorded.streamId, recorded.position.commit])).toEqual([
        ['old-1', 1n],
        ['new-1', 2n],
      ]);
    } finally {
      await store.close();
    }
    expect(eventsTableSql(file)).toMatch(/AUTOINCREMENT/);
    readSqliteFile(file, (db) => expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION));
  });

  it('writes one page less per commit than a table with AUTOINCREMENT', async () => {
    const fresh = tempFile();
    const kept = tempFile();
    storeOfStep5WithAnEvent(kept);
    const stores = [SqliteEventStore.open(fresh), SqliteEventStore.open(kept)];
    try {
      const withoutSequence = await framesPerAppend(stores[0]!, fresh, 5);
      const withSequence = await framesPerAppend(stores[1]!, kept, 5);
      expect(Math.max(...withoutSequence)).toBe(Math.min(...withSequence) - 1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
