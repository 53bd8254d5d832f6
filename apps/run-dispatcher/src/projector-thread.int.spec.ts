import { causedBy, READ_MODEL_PROJECTION, toAppend } from '@wts/application';
import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { SqliteEventStore, comparePositions } from '@wts/event-store';
import { EMBEDDED_READ_MODEL_FILE, EMBEDDED_STORE_FILE } from '@wts/platform';
import { SqliteReadModelStore } from '@wts/read-models';
import { eventually, freshTextDelivery } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeFollowersThread, type StoreFollowersSettings, type StoreFollowersThread } from './dispatcher-threads.factory';

const ROUTINE = 'rtn_ProjectorThreadRoutine00';

/** The projector on its own thread, against the real SQLite files the dispatcher shares with it. */
describe('the store followers thread: the read-model projector', () => {
  let dir: string;
  let store: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  const threads: StoreFollowersThread[] = [];
  const lines: { level: string; message: string; fields: object }[] = [];
  const logger = {
    info: (fields: object, message: string): void => void lines.push({ level: 'info', message, fields }),
    warn: (fields: object, message: string): void => void lines.push({ level: 'warn', message, fields }),
    error: (fields: object, message: string): void => void lines.push({ level: 'error', message, fields }),
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-projector-thread-'));
    store = SqliteEventStore.open(join(dir, EMBEDDED_STORE_FILE));
    readModels = SqliteReadModelStore.open(join(dir, EMBEDDED_READ_MODEL_FILE));
    lines.length = 0;
  });

  afterEach(async () => {
    await Promise.all(threads.splice(0).map((thread) => thread.stop()));
    await readModels.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function settings(dataDir = dir): StoreFollowersSettings {
    return {
      storage: { dataDir },
      eventStore: { connectionString: undefined, maxAppendBytes: 1_048_576 },
      database: { url: undefined },
      tracing: { enabled: false },
      runRelay: undefined,
    };
  }

  function start(given = settings()): StoreFollowersThread {
    const thread = storeFollowersThread(given, { store, logger });
    threads.push(thread);
    void thread.start();
    return thread;
  }

  async function accept(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const deliveryId = `dlv_${randomUUID().replace(/-/g, '')}`;
      const delivery: DeliveryAccepted = { type: 'DeliveryAccepted', data: freshTextDelivery(`n${i}`, { deliveryId, routineId: ROUTINE }) };
      await store.append(Streams.delivery(deliveryId), toAppend([delivery], causedBy(deliveryId, deliveryId), randomUUID), 'no_stream');
      ids.push(deliveryId);
    }
    return ids;
  }

  async function listed(): Promise<string[]> {
    return (await readModels.deliveries(ROUTINE, { limit: 100 })).items.map((row) => row.delivery_id);
  }

  it('projects what this process appends, reports where the read models are, and stops after its batch', async () => {
    const before = await accept(5);
    const thread = start();
    const after = await accept(5);
    const head = await store.headPosition();
    await eventually(
      async () => {
        const committed = thread.progress()?.projector.committed;
        return (
          (await listed()).length === 10 &&
          thread.progress()?.projector.running === true &&
          committed !== undefined &&
          head !== undefined &&
          comparePositions(committed, head) >= 0
        );
      },
      // A cold start under the tests' loader compiles the thread's imports first.
      30_000,
      'ten deliveries listed, the reported position at the head',
    );
    expect(await listed()).toEqual([...before, ...after].reverse());
    expect(await readModels.loadCheckpoint(READ_MODEL_PROJECTION)).toEqual(thread.progress()?.projector.committed);
    expect(lines).toContainEqual({ level: 'info', message: 'read-model projector: this replica writes the read models', fields: { context: 'ReadModelProjector' } });

    await thread.stop();
    expect(thread.progress()).toBeUndefined();
  }, 45_000);

  it('starts a thread that could not open its files again, logging why, and a stop ends the waiting at once', async () => {
    const notADirectory = join(dir, 'a-file');
    writeFileSync(notADirectory, '');
    const thread = start(settings(notADirectory));
    await eventually(
      () => lines.some((line) => line.level === 'error' && line.message.startsWith('store followers thread ended; starting it again')),
      30_000,
      'the thread ended and is to start again',
    );
    const failure = lines.find((line) => line.message === 'store followers thread could not start');
    expect(failure?.fields).toEqual({ err: expect.stringContaining('cannot open event store') });
    const stopping = Date.now();
    await thread.stop();
    expect(Date.now() - stopping).toBeLessThan(1000);
    expect(thread.progress()).toBeUndefined();
  }, 45_000);
});
