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
import { relayCheckpointName } from '@wts/messaging';
import { createTopicsWithLeaders } from '../../../libs/messaging/src/kafka-topics.admin';
import { appendRoutineWithWebhook, appendSizedRuns } from '../../../test/support/kafka-test-kit';
import { useRelayTestBed, type RelayTestBed } from '../../../test/support/relay-test.harness';
import {
  STORE_FOLLOWERS_YOUNG_GENERATION_MB,
  storeFollowersThread,
  type StoreFollowersSettings,
  type StoreFollowersThread,
} from './dispatcher-threads.factory';

const DAY_S = 86_400;

/** The thread's lines, as the service's logger would have written them (cleared before each test). */
const lines: { level: string; message: string; fields: object }[] = [];
const logger = {
  info: (fields: object, message: string): void => void lines.push({ level: 'info', message, fields }),
  warn: (fields: object, message: string): void => void lines.push({ level: 'warn', message, fields }),
  error: (fields: object, message: string): void => void lines.push({ level: 'error', message, fields }),
};
beforeEach(() => {
  lines.length = 0;
});

const ROUTINE = 'rtn_ProjectorThreadRoutine00';

/** The projector on its own thread, against the real SQLite files the dispatcher shares with it. */
describe('the store followers thread: the read-model projector', () => {
  let dir: string;
  let store: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  const threads: StoreFollowersThread[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-projector-thread-'));
    store = SqliteEventStore.open(join(dir, EMBEDDED_STORE_FILE));
    readModels = SqliteReadModelStore.open(join(dir, EMBEDDED_READ_MODEL_FILE));
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
    expect(thread.heapLimits()?.maxYoungGenerationSizeMb).toBe(STORE_FOLLOWERS_YOUNG_GENERATION_MB);
    expect(lines).toContainEqual({
      level: 'info',
      message: 'read-model projector: this replica writes the read models',
      fields: { context: 'ReadModelProjector' },
    });

    await thread.stop();
    expect(thread.progress()).toBeUndefined();
    expect(thread.heapLimits()).toBeUndefined();
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

/** The run relay on its own thread, against the store file the test appends to and the real broker. */
describe('the store followers thread: the run relay (real broker)', () => {
  const currentBed = useRelayTestBed('runthread');

  function settings(bed: RelayTestBed, payloadRetentionSeconds = 30 * DAY_S): StoreFollowersSettings {
    return {
      storage: { dataDir: bed.dir },
      eventStore: { connectionString: undefined, maxAppendBytes: 1_048_576 },
      database: { url: undefined },
      tracing: { enabled: false },
      runRelay: {
        kafka: { brokers: [...bed.brokers], sasl: undefined, ssl: false },
        payloadRetentionSeconds,
        isolated: { name: `${bed.name}-runs`, topics: bed.topics },
      },
    };
  }

  /** Started; stopped at the end of `use` whatever happens (before the bed deletes its topics). */
  async function withThread(
    given: StoreFollowersSettings,
    refused: (error: Error) => void,
    use: (thread: StoreFollowersThread) => Promise<void>,
  ): Promise<void> {
    const thread = storeFollowersThread(given, { store: currentBed().store, logger, refused });
    await thread.start();
    try {
      await use(thread);
    } finally {
      await thread.stop();
    }
  }

  it('forwards the runs this process appends, framed with their payloads, reports its gauges, and checkpoints on stop', async () => {
    const bed = currentBed();
    const hook = await appendRoutineWithWebhook(bed.store);
    const before = await appendSizedRuns(bed.store, hook, 3, 512);
    const refusals: Error[] = [];
    await withThread(
      settings(bed),
      (error) => refusals.push(error),
      async (thread) => {
        // A cold start under the tests' loader compiles the thread's imports first; leading, it has made its topics.
        await eventually(() => thread.progress()?.runRelay?.leading === true, 60_000, 'the thread to lead');
        const reader = await bed.reader([bed.topics.routineRuns]);
        await eventually(() => reader.messages.length >= 3, 20_000, 'the three runs appended before the start');
        const after = await appendSizedRuns(bed.store, hook, 2, 512);
        await eventually(() => reader.messages.length >= 5, 20_000, 'the two runs appended while it runs');
        expect(reader.messages.map((message) => message.headers['event-id'])).toEqual([...before, ...after].map((event) => event.id));
        expect(JSON.parse(reader.messages[0].value?.toString('utf8') ?? '{}')).toMatchObject({
          initialMessage: expect.stringContaining('xxxx') as unknown,
        });
        await eventually(
          () => thread.progress()?.runRelay?.leading === true && thread.progress()?.runRelay?.pendingEvents === 0,
          20_000,
          'the gauges: leading, nothing pending',
        );
      },
    );
    const last = (await bed.store.readAll({ limit: 1000 })).filter((event) => event.type === 'RunCreated').at(-1);
    expect(await bed.store.checkpoints().load(relayCheckpointName(`${bed.name}-runs`))).toEqual(last?.position);
    expect(refusals).toEqual([]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  }, 120_000);

  it('refuses a runs topic that keeps payloads longer than PAYLOAD_RETENTION_SECONDS: the service is told why, the thread is not started again', async () => {
    const bed = currentBed();
    const admin = bed.kafka.admin();
    await admin.connect();
    try {
      // An operator's 3 days, with the broker's default segment.ms (7 days).
      await createTopicsWithLeaders(admin, [
        { topic: bed.topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '259200000' }] },
      ]);
    } finally {
      await admin.disconnect();
    }
    const refusals: Error[] = [];
    await withThread(
      settings(bed, DAY_S),
      (error) => refusals.push(error),
      async (thread) => {
        await eventually(() => refusals.length > 0, 60_000, 'the refusal');
        expect(refusals).toHaveLength(1);
        expect(refusals[0].message).toContain('keeps run messages, which carry payloads, longer than PAYLOAD_RETENTION_SECONDS allows');
        await eventually(() => thread.progress() === undefined, 10_000, 'the thread ended');
      },
    );
    expect(lines.some((line) => line.message.includes('starting it again'))).toBe(false);
  }, 90_000);
});
