import { relayCheckpointName } from '@wts/messaging';
import { eventually } from '@wts/testing';
import { createTopicsWithLeaders } from '../../../libs/messaging/src/kafka-topics.admin';
import { appendRoutineWithWebhook, appendSizedRuns } from '../../../test/support/kafka-test-kit';
import { useRelayTestBed, type RelayTestBed } from '../../../test/support/relay-test.harness';
import { storeFollowersThread, type StoreFollowersSettings, type StoreFollowersThread } from './dispatcher-threads.factory';

const DAY_S = 86_400;

/** The run relay on its own thread, against the store file the test appends to and the real broker. */
describe('the store followers thread: the run relay (real broker)', () => {
  const currentBed = useRelayTestBed('runthread');
  const lines: { level: string; message: string; fields: object }[] = [];
  const logger = {
    info: (fields: object, message: string): void => void lines.push({ level: 'info', message, fields }),
    warn: (fields: object, message: string): void => void lines.push({ level: 'warn', message, fields }),
    error: (fields: object, message: string): void => void lines.push({ level: 'error', message, fields }),
  };

  beforeEach(() => {
    lines.length = 0;
  });

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
