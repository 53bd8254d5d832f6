import Database from 'better-sqlite3';
import { eventually, readSqliteFile, sqliteFileHeader, stampSqliteUserVersion, whileWriteLocked } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeEventStoreContract, expectUnavailableOnceClosed } from '../contract';
import { DuplicateEventIdError, InvalidAppendError } from '../event-store.errors';
import type { EventToAppend, RecordedEvent } from '../event-store.port';
import { SqliteEventStore } from './sqlite-event-store.adapter';
import { SCHEMA_VERSION } from './sqlite-schema.migrations';

const tempDirs: string[] = [];

function tempFile(name = 'events.db'): string {
  const dir = mkdtempSync(join(tmpdir(), 'wts-event-store-'));
  tempDirs.push(dir);
  return join(dir, 'nested', 'deeper', name);
}

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function newEvent(type = 'Tested'): EventToAppend {
  return { id: randomUUID(), type, data: { type }, metadata: {} };
}

describeEventStoreContract(
  'SqliteEventStore',
  async () => {
    const file = tempFile();
    let store = SqliteEventStore.open(file);
    return {
      store,
      checkpoints: store.checkpoints(),
      reopen: async () => {
        store = SqliteEventStore.open(file);
        return { store, checkpoints: store.checkpoints() };
      },
      cleanup: () => store.close(),
    };
  },
  { globallyUniqueEventIds: true },
);

describe('SqliteEventStore (SQLite specifics)', () => {
  const open: SqliteEventStore[] = [];
  const openStore = (file: string, options?: Parameters<typeof SqliteEventStore.open>[1]): SqliteEventStore => {
    const store = SqliteEventStore.open(file, options);
    open.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });

  it('creates parent directories, uses WAL and records the schema version', () => {
    const file = tempFile();
    openStore(file);

    expect(sqliteFileHeader(file)).toEqual({ journalMode: 'wal', userVersion: SCHEMA_VERSION });
  });

  it('upgrades a version-1 file in place: its events keep reading, category filters use the new index', async () => {
    const file = tempFile();
    mkdirSync(dirname(file), { recursive: true });
    const raw = new Database(file);
    raw.exec(`
      CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, stream_id TEXT NOT NULL, revision INTEGER NOT NULL,
        event_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
        created_at INTEGER NOT NULL, UNIQUE (stream_id, revision));
      CREATE TABLE checkpoints (name TEXT PRIMARY KEY, commit_pos INTEGER NOT NULL, prepare_pos INTEGER NOT NULL,
        updated_at INTEGER NOT NULL) WITHOUT ROWID;`);
    const insert = raw.prepare(
      'INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created_at) VALUES (?, 0, ?, ?, ?, ?, 0)',
    );
    for (const stream of ['webhook-a', 'delivery-b', 'webhook_slot-c', 'routine-d', 'nodash'])
      insert.run(stream, randomUUID(), 'Old', '{}', '{}');
    raw.pragma('user_version = 1');
    raw.close();

    const store = openStore(file);
    const streams = async (prefixes: string[]): Promise<string[]> =>
      (await store.readAll({ limit: 100, filter: { streamPrefixes: prefixes } })).map((event) => event.streamId);
    expect(await streams(['webhook-', 'routine-'])).toEqual(['webhook-a', 'routine-d']);
    expect(await streams(['delivery-'])).toEqual(['delivery-b']);
    expect(await streams(['nodash'])).toEqual(['nodash']);
    await store.append('webhook-e', [newEvent()], 'no_stream');
    expect(await streams(['webhook-'])).toEqual(['webhook-a', 'webhook-e']);

    readSqliteFile(file, (check) => {
      const plan = check
        .prepare("EXPLAIN QUERY PLAN SELECT * FROM events WHERE category IN ('webhook-') AND seq > 0 ORDER BY seq")
        .all() as { detail: string }[];
      expect(plan.map((row) => row.detail).join(' ')).toContain('events_by_category');
    });
  });

  it('lets concurrent appends share commits (group commit), each answered once its commit is durable', async () => {
    const file = tempFile();
    const store = openStore(file);
    const commits: { requests: number; ms: number }[] = [];
    store.onCommit((report) => commits.push(report));
    const count = 300;
    const results = await Promise.all(Array.from({ length: count }, (_, i) => store.append(`group-${i}`, [newEvent()], 'no_stream')));
    expect(results.every((result) => result.kind === 'appended')).toBe(true);
    expect(commits.reduce((sum, commit) => sum + commit.requests, 0)).toBe(count);
    expect(commits.length).toBeLessThan(count / 3);
    // Every append that resolved is in the file, for another connection to see.
    readSqliteFile(file, (raw) => {
      expect(Number((raw.prepare("SELECT count(*) AS n FROM events WHERE stream_id LIKE 'group-%'").get() as { n: number }).n)).toBe(count);
    });
  });

  it('refuses an event above maxEventBytes with InvalidAppendError, before anything is written', async () => {
    const store = openStore(tempFile(), { maxEventBytes: 1000 });
    const big = { id: randomUUID(), type: 'Big', data: { text: 'x'.repeat(1000) }, metadata: {} };
    await expect(store.append('big-1', [big], 'no_stream')).rejects.toThrow(InvalidAppendError);
    await expect(store.append('big-1', [big], 'no_stream')).rejects.toThrow(/above the store's limit of 1000 bytes/);
    expect(await store.readStream('big-1')).toEqual([]);
    expect(store.maxEventBytes).toBe(1000);
    expect((await store.append('small-1', [newEvent()], 'no_stream')).kind).toBe('appended');
  });

  it('refuses a database written by a newer schema version', () => {
    const file = tempFile();
    openStore(file);
    stampSqliteUserVersion(file, 99);

    expect(() => SqliteEventStore.open(file)).toThrow(/schema version 99 is newer/);
  });

  it('reports an empty store as headPosition undefined and positions as seq', async () => {
    const store = openStore(tempFile());
    expect(await store.headPosition()).toBeUndefined();

    const result = await store.append('s-1', [newEvent(), newEvent()], 'no_stream');
    const read = await store.readStream('s-1');

    expect(read.map((event) => event.position)).toEqual([
      { commit: 1n, prepare: 1n },
      { commit: 2n, prepare: 2n },
    ]);
    expect(result).toEqual({ kind: 'appended', nextRevision: 1n, position: read[1].position });
    expect(await store.headPosition()).toEqual(read[1].position);
  });

  it('answers an idempotent retry with the original revision and position', async () => {
    const store = openStore(tempFile());
    const events = [newEvent(), newEvent()];
    const original = await store.append('s-1', events, 'no_stream');
    await store.append('s-2', [newEvent()], 'no_stream');

    expect(await store.append('s-1', events, 'no_stream')).toEqual(original);
    expect(await store.append('s-1', events.slice(1), 0n)).toEqual(original);
  });

  it('rejects malformed appends as usage errors, not as unavailability', async () => {
    const store = openStore(tempFile());
    const event = newEvent();
    await store.append('s-1', [event], 'no_stream');

    await expect(store.append('s-2', [{ ...newEvent(), id: 'not-a-uuid' }], 'any')).rejects.toBeInstanceOf(InvalidAppendError);
    const twice = newEvent();
    await expect(store.append('s-2', [twice, twice], 'any')).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(store.append('s-2', [event], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
    // Same stream, but not where a retry of this append would have put it.
    await expect(store.append('s-1', [event, newEvent()], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
    expect(await store.readStream('s-2')).toEqual([]);
  });

  it('surfaces a closed store as EventStoreUnavailableError', async () => {
    const store = openStore(tempFile());
    await store.close();

    await expectUnavailableOnceClosed(store);
  });

  it('surfaces a write lock held past busy_timeout as EventStoreUnavailableError', async () => {
    const file = tempFile();
    const store = openStore(file, { busyTimeoutMs: 50 });
    await whileWriteLocked(file, async () => {
      await expect(store.append('s-1', [newEvent()], 'any')).rejects.toThrow(
        expect.objectContaining({ name: 'EventStoreUnavailableError', message: expect.stringMatching(/SQLITE_BUSY/) }),
      );
      await expect(store.readStream('s-1')).resolves.toEqual([]);
    });
    await expect(store.append('s-1', [newEvent()], 'any')).resolves.toMatchObject({ kind: 'appended' });
  });

  it('waits for a write lock another connection holds, then commits every append that waited', async () => {
    const file = tempFile();
    const store = openStore(file, { busyTimeoutMs: 10_000 });
    await store.append('warm-up', [newEvent()], 'no_stream'); // the writer thread is up and has committed once
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const appends = [store.append('s-1', [newEvent()], 'no_stream'), store.append('s-2', [newEvent()], 'no_stream')];
    let settled = 0;
    for (const append of appends)
      void append.then(
        () => (settled += 1),
        () => (settled += 1),
      );
    // The writer is retrying: nothing settles while the lock is held.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(0);
    other.exec('COMMIT');
    other.close();
    await expect(Promise.all(appends)).resolves.toEqual([
      expect.objectContaining({ kind: 'appended' }),
      expect.objectContaining({ kind: 'appended' }),
    ]);
  });

  it('has committed an append by the time it resolves (a second connection sees it)', async () => {
    const file = tempFile();
    const store = openStore(file);
    const event = newEvent();
    await store.append('s-1', [event], 'no_stream');

    readSqliteFile(file, (raw) => {
      expect(raw.prepare('SELECT event_id FROM events').pluck().all()).toEqual([event.id]);
    });
  });

  it('lets a subscription on another instance of the same file see its appends, in order', async () => {
    const file = tempFile();
    const writer = openStore(file);
    const reader = openStore(file, { pollIntervalMs: 20 });
    const seen: { event: RecordedEvent; at: number }[] = [];
    let caughtUp = false;
    const subscription = reader.subscribeToAll(
      { onCaughtUp: () => (caughtUp = true) },
      (event) => void seen.push({ event, at: Date.now() }),
    );
    await eventually(() => caughtUp, 10_000, 'the subscription to reach the end and wait', 1);

    const latencies: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      const sentAt = Date.now();
      const event = newEvent();
      await writer.append(`s-${index}`, [event], 'no_stream');
      await eventually(() => seen.some((entry) => entry.event.id === event.id), 10_000, 'the other instance to see the append', 2);
      latencies.push(Date.now() - sentAt);
    }
    await subscription.stop();

    // Polling every 20 ms: well under the 60 s a missed wake-up would cost elsewhere, and loose
    // enough that a loaded machine does not fail it (this measures the code, not the machine).
    expect(Math.max(...latencies)).toBeLessThan(2_000);
    expect(seen.map((entry) => entry.event.streamId)).toEqual(['s-0', 's-1', 's-2', 's-3', 's-4']);
  });

  // Another instance of the file in this process stands for another thread's (the projector's, the
  // run relay's): the stores of one file tell each other of their appends (SqliteAppendChannel).
  it.each(['this instance', 'another instance of the file in this process'])(
    'wakes a subscription on an append through %s without waiting for the poll',
    async (through) => {
      const file = tempFile();
      const store = openStore(file, { pollIntervalMs: 60_000 });
      const writer = through === 'this instance' ? store : openStore(file, { pollIntervalMs: 60_000 });
      const seen: number[] = [];
      let caughtUp = false;
      const subscription = store.subscribeToAll({ onCaughtUp: () => (caughtUp = true) }, () => void seen.push(Date.now()));
      await eventually(() => caughtUp, 10_000, 'the subscription to reach the end and wait', 1);

      const sentAt = Date.now();
      await writer.append('s-1', [newEvent()], 'no_stream');
      await eventually(() => seen.length > 0, 10_000, 'the event', 1).finally(() => subscription.stop());

      expect(seen).toHaveLength(1);
      // The poll is 60 s away: seeing it within seconds can only be the wake-up.
      expect(seen[0] - sentAt).toBeLessThan(5_000);
    },
  );

  it('delivers filtered events across small batches and long skipped ranges', async () => {
    const store = openStore(tempFile(), { subscriptionBatchSize: 4 });
    for (let index = 0; index < 20; index += 1) await store.append(`other-${index}`, [newEvent()], 'no_stream');
    const seen: string[] = [];
    const subscription = store.subscribeToAll({ filter: { streamPrefixes: ['wanted-'] } }, (event) => {
      seen.push(event.streamId);
    });
    await store.append('wanted-1', [newEvent()], 'no_stream');
    for (let index = 20; index < 30; index += 1) await store.append(`other-${index}`, [newEvent()], 'no_stream');
    await store.append('wanted-2', [newEvent()], 'no_stream');
    await eventually(() => seen.length >= 2, 10_000, 'both wanted events', 5).finally(() => subscription.stop());

    expect(seen).toEqual(['wanted-1', 'wanted-2']);
  });
});
