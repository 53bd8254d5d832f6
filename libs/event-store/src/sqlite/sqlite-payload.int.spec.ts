import Database from 'better-sqlite3';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidAppendError } from '../event-store.errors';
import type { PayloadAttachment } from '../payload-store.port';
import { SqliteEventStore } from './sqlite-event-store.adapter';
import { PAYLOAD_BUCKET_MS, payloadBucketOf } from './sqlite-payload.records';

/**
 * "Removed means removed" on the bytes of the files (docs/data-lifecycle-plan.md F1–F3): after
 * remove + reclaim, no removed payload's marker is left anywhere in events.sqlite, its -wal or
 * its -shm, while every kept one still reads back.
 */
const MARK = 'PAYLOADMARK:';
const MARK_LENGTH = MARK.length + 16;
const HOUR = PAYLOAD_BUCKET_MS;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wts-payload-bytes-'));
  dirs.push(dir);
  return dir;
}

function newMarker(): string {
  return `${MARK}${randomBytes(8).toString('hex')}`;
}

/** A body holding its marker: small ones share pages, large ones (20–40 KiB) span overflow pages, with the marker in each part. */
function bodyWith(marker: string, large: boolean): string {
  const filler = (length: number): string => 'lorem ipsum dolor sit amet ünïcödé '.repeat(Math.ceil(length / 35)).slice(0, length);
  if (!large) return `{"before":"${filler(randomInt(20, 1500))}","marker":"${marker}","after":"${filler(randomInt(0, 500))}"}`;
  const part = randomInt(7_000, 14_000);
  return `${marker} ${filler(part)} ${marker} ${filler(part)} ${marker}`;
}

/** Every marker that appears in any file of the directory. */
function markersOnDisk(dir: string): Set<string> {
  const found = new Set<string>();
  for (const name of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, name));
    for (let at = bytes.indexOf(MARK); at !== -1; at = bytes.indexOf(MARK, at + 1)) {
      found.add(bytes.toString('latin1', at, at + MARK_LENGTH));
    }
  }
  return found;
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = randomInt(index + 1);
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

interface Stored {
  readonly key: string;
  readonly marker: string;
  readonly expiresAt: number;
}

async function putMany(store: SqliteEventStore, count: number, expiresAt: (index: number) => number): Promise<Stored[]> {
  const stored: Stored[] = [];
  const appends: Promise<unknown>[] = [];
  for (let index = 0; index < count; index += 1) {
    const key = randomUUID();
    const marker = newMarker();
    const payload: PayloadAttachment = {
      key,
      webhookId: 'wh',
      format: 'json',
      text: bodyWith(marker, index % 4 === 0),
      receivedAt: Date.now(),
      expiresAt: expiresAt(index),
    };
    appends.push(
      store.append(`delivery-${key}`, [{ id: randomUUID(), type: 'DeliveryAccepted', data: { key }, metadata: {} }], 'no_stream', {
        payload,
      }),
    );
    stored.push({ key, marker, expiresAt: payload.expiresAt });
  }
  await Promise.all(appends);
  return stored;
}

/** Removes these in random order, in batches of random size. */
async function removeShuffled(store: SqliteEventStore, keys: readonly string[]): Promise<void> {
  const order = shuffled(keys);
  while (order.length > 0) {
    const batch = order.splice(0, randomInt(1, 60));
    await store.payloads().remove(batch, { reason: 'erased', erasureId: 'era_test', at: Date.now() });
  }
}

async function expectKeptReadable(store: SqliteEventStore, kept: readonly Stored[]): Promise<void> {
  const found = await store.payloads().get(kept.map((each) => each.key));
  for (const each of kept) {
    const payload = found.get(each.key);
    expect(payload?.state === 'kept' && payload.text.includes(each.marker)).toBe(true);
  }
}

describe('SqlitePayloadStore: removed payloads leave no byte in the files', () => {
  it('zeroes removed bodies, drops past buckets and truncates the WAL: no removed marker anywhere, every kept one readable', async () => {
    const dir = tempDir();
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    try {
      const now = Date.now();
      const expiring = (payloadBucketOf(now) + 1) * HOUR + 1_000; // the next hour's bucket
      const fakeNow = (payloadBucketOf(expiring) + 1) * HOUR; // that hour entirely past
      const live = await putMany(store, 500, (index) => fakeNow + HOUR * (1 + (index % 3)) + index);
      const expired = await putMany(store, 150, (index) => expiring + index);
      const erased = shuffled(live).slice(0, live.length / 2);
      await removeShuffled(
        store,
        erased.map((each) => each.key),
      );
      const due = await store.payloads().due(fakeNow, 10_000);
      expect(new Set(due)).toEqual(new Set(expired.map((each) => each.key)));
      for (const batch of [due.slice(0, 100), due.slice(100)]) {
        await store.payloads().remove(batch, { reason: 'expired', erasureId: null, at: fakeNow });
      }

      expect(await store.payloads().reclaim(fakeNow)).toEqual({ complete: true, released: 1 });

      const removedMarkers = [...erased, ...expired].map((each) => each.marker);
      const onDisk = markersOnDisk(dir);
      expect(removedMarkers.filter((marker) => onDisk.has(marker))).toEqual([]);
      const erasedKeys = new Set(erased.map((each) => each.key));
      const kept = live.filter((each) => !erasedKeys.has(each.key));
      expect(kept.filter((each) => !onDisk.has(each.marker))).toEqual([]);
      await expectKeptReadable(store, kept);
      const removed = await store.payloads().get([erased[0].key, expired[0].key]);
      expect(removed.get(erased[0].key)).toMatchObject({ state: 'removed', reason: 'erased', erasureId: 'era_test' });
      expect(removed.get(expired[0].key)).toEqual({ state: 'removed', reason: 'expired', removedAt: fakeNow, erasureId: null });
      expect((await store.payloads().scan(MARK.toLowerCase(), { limit: 10_000 })).matches).toHaveLength(kept.length);
    } finally {
      await store.close();
    }
  });

  it('reports incomplete while another connection reads an older snapshot, and completes once it ends', async () => {
    const dir = tempDir();
    const file = join(dir, 'events.sqlite');
    const store = SqliteEventStore.open(file, { truncateWaitMs: 300 });
    const reader = new Database(file);
    try {
      const stored = await putMany(store, 200, (index) => Date.now() + HOUR + index);
      // A read transaction that began before the removal: its snapshot still needs the bodies.
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM events').get();
      const removed = stored.slice(0, 100);
      await removeShuffled(
        store,
        removed.map((each) => each.key),
      );
      const removedMarkers = removed.map((each) => each.marker);

      expect(await store.payloads().reclaim(Date.now())).toEqual({ complete: false, released: 0 });
      const whileReading = markersOnDisk(dir);
      expect(removedMarkers.some((marker) => whileReading.has(marker))).toBe(true);

      // The reader ends while reclaim keeps trying: it completes then.
      const patient = SqliteEventStore.open(file, { truncateWaitMs: 5_000 });
      try {
        const startedAt = Date.now();
        const reclaimed = patient.payloads().reclaim(Date.now());
        setTimeout(() => reader.exec('COMMIT'), 400);
        expect(await reclaimed).toEqual({ complete: true, released: 0 });
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(350);
      } finally {
        await patient.close();
      }

      const onDisk = markersOnDisk(dir);
      expect(removedMarkers.filter((marker) => onDisk.has(marker))).toEqual([]);
      await expectKeptReadable(store, stored.slice(100));
    } finally {
      reader.close();
      await store.close();
    }
  });
});

describe('SqlitePayloadStore: SQLite specifics', () => {
  const event = (): { id: string; type: string; data: object; metadata: object } => ({
    id: randomUUID(),
    type: 'T',
    data: {},
    metadata: {},
  });
  const payloadOf = (key: string, expiresAt = Date.now() + HOUR): PayloadAttachment => ({
    key,
    webhookId: 'wh',
    format: 'text',
    text: `text of ${key}`,
    receivedAt: Date.now(),
    expiresAt,
  });

  it('refuses a key that has a payload already, writing none of that append, without failing the appends beside it', async () => {
    const store = SqliteEventStore.open(join(tempDir(), 'events.sqlite'));
    try {
      await store.append('delivery-k1', [event()], 'no_stream', { payload: payloadOf('k1') });
      const [reused, beside] = await Promise.allSettled([
        store.append('erasure-k1', [event()], 'no_stream', { payload: payloadOf('k1') }),
        store.append('delivery-k3', [event()], 'no_stream', { payload: payloadOf('k3') }),
      ]);

      expect(reused.status === 'rejected' && reused.reason instanceof InvalidAppendError).toBe(true);
      expect(beside.status).toBe('fulfilled');
      expect(await store.readStream('erasure-k1')).toEqual([]);
      expect([...(await store.payloads().get(['k1', 'k3'])).keys()].sort()).toEqual(['k1', 'k3']);
    } finally {
      await store.close();
    }
  });

  it('refuses malformed attachments, scans and removals as usage errors, before any I/O', async () => {
    const store = SqliteEventStore.open(join(tempDir(), 'events.sqlite'));
    try {
      const bad: [string, PayloadAttachment][] = [
        ['d-', { ...payloadOf(''), key: '' }],
        ['d-neg', payloadOf('neg', -1)],
        ['d-late', payloadOf('late', 2 ** 42)],
        ['d-fmt', { ...payloadOf('fmt'), format: 'xml' as 'json' }],
        ['d-other', payloadOf('key')],
        ['key', payloadOf('key')],
        ['d-x-key', payloadOf('key')],
      ];
      for (const [stream, payload] of bad) {
        await expect(store.append(stream, [event()], 'no_stream', { payload })).rejects.toThrow(InvalidAppendError);
      }
      const payloads = store.payloads();
      await expect(payloads.scan('', { limit: 10 })).rejects.toThrow(RangeError);
      await expect(payloads.scan('x', { limit: 0 })).rejects.toThrow(RangeError);
      await expect(payloads.scan('x', { cursor: 'elsewhere', limit: 10 })).rejects.toThrow(/cursor/);
      await expect(payloads.remove(['k'], { reason: 'lost' as 'expired', erasureId: null, at: 1 })).rejects.toThrow(RangeError);
      expect(await store.readAll({ limit: 10 })).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('drops a bucket table only once its hour is past and nothing in it is kept; a late write makes it stand again', async () => {
    const file = join(tempDir(), 'events.sqlite');
    const store = SqliteEventStore.open(file);
    const db = new Database(file, { readonly: true });
    const tables = (): string[] =>
      db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE name LIKE 'payloads\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
    try {
      const expiresAt = 5 * HOUR + 10;
      await store.append('delivery-a', [event()], 'no_stream', { payload: payloadOf('a', expiresAt) });
      await store.append('delivery-b', [event()], 'no_stream', { payload: payloadOf('b', expiresAt + 1) });
      const payloads = store.payloads();
      await payloads.remove(['a'], { reason: 'expired', erasureId: null, at: 1 });

      expect(await payloads.reclaim(6 * HOUR)).toEqual({ complete: true, released: 0 }); // b is kept
      await payloads.remove(['b'], { reason: 'expired', erasureId: null, at: 2 });
      expect(await payloads.reclaim(6 * HOUR - 1)).toEqual({ complete: true, released: 0 }); // the hour is not over
      expect(tables()).toEqual(['payloads_5']);
      expect(await payloads.reclaim(6 * HOUR)).toEqual({ complete: true, released: 1 });
      expect(tables()).toEqual([]);

      await store.append('delivery-c', [event()], 'no_stream', { payload: payloadOf('c', expiresAt + 2) });
      expect((await payloads.get(['a', 'c'])).get('c')).toMatchObject({ state: 'kept', text: 'text of c' });
      await payloads.remove(['c'], { reason: 'expired', erasureId: null, at: 3 });
      expect(await payloads.reclaim(6 * HOUR)).toEqual({ complete: true, released: 1 });
      expect((await payloads.get(['a'])).get('a')).toEqual({ state: 'removed', reason: 'expired', removedAt: 1, erasureId: null });
    } finally {
      db.close();
      await store.close();
    }
  });
});
