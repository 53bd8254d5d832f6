import { SqliteEventStore, type RecordedEvent } from '@wts/event-store';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DeliveryStream } from '../support/delivery-sender';
import { ConsumerGroups, KafkaHeaders, KafkaTopics } from '@wts/messaging';
import { MessageCollector, committedOffsets, testKafka } from '../support/kafka-test-kit';
import { scrape, valueOf } from '../support/metrics-scrape';
import { startServicePair, type ServicePair } from '../support/service-pair.harness';
import { eventually } from '@wts/testing';

const DELIVERIES = 600;
const CONCURRENCY = 12;

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * SIGTERM during load, to each service as a process from dist/, in the Kafka shape (a broker of
 * the test's own) and the embedded one. Senders post with idempotency keys and retry what was not answered 202 (503 while
 * closing, refused while down), like a sender with retries. Proven: each service exits 0 on its
 * own (no kill), every 202 names a delivery the store holds, every key is one delivery and one
 * run; once the dispatcher is down its progress is saved exactly: Kafka — the committed offsets
 * cover the messages with a run and no other (the relay's at-least-once duplicates aside);
 * embedded — its successor meets no delivery twice.
 */
let currentDataDir = '';
const dataDirOf = (): string => currentDataDir;

describe.each([
  ['the Kafka shape', true],
  ['the embedded shape', false],
])('graceful shutdown on SIGTERM during load (%s)', (_shape, withKafka) => {
  let pair: ServicePair;

  beforeAll(async () => {
    pair = await startServicePair('sigterm', { kafka: withKafka });
    currentDataDir = pair.dataDir;
  }, 240_000);

  afterAll(async () => {
    await pair?.stop();
  }, 60_000);

  it('loses nothing, answers no 202 it did not keep, and the dispatcher saves its progress on the way out', async () => {
    const hook = await pair.admin.setUpWebhook('sigterm@example.com');
    const answers = new Map<number, Answer[]>();
    /** Tries per delivery, refused connections included (they leave no answer). */
    const attempts = new Map<number, number>();
    let uncommitted: string[] | undefined;
    const deliver = async (i: number): Promise<void> => {
      const seen: Answer[] = [];
      answers.set(i, seen);
      for (let attempt = 0; attempt < 1000; attempt++) {
        attempts.set(i, attempt + 1);
        try {
          const response = await fetch(hook.url, {
            method: 'POST',
            headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json', 'x-service-idempotency-key': `k-${i}` },
            body: JSON.stringify({ data: { i } }),
          });
          const answer = { status: response.status, body: await response.text() };
          seen.push(answer);
          if (answer.status === 202) return;
          if (answer.status !== 503) throw new Error(`k-${i}: unexpected ${answer.status} ${answer.body}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith(`k-${i}:`)) throw error;
          // refused or reset while the ingress is down: retry with the same key
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`k-${i} never got a 202`);
    };
    const stream = new DeliveryStream(DELIVERIES, deliver);
    const at = (fraction: number): Promise<boolean> => stream.reached(fraction, 120_000);

    const chaos = async (): Promise<void> => {
      await at(0.25);
      await pair.ingress.stop(); // SIGTERM, and wait for the exit
      // Why, when it did not exit cleanly (its own last lines say: a failed close, or the deadline).
      if (pair.ingress.exit?.code !== 0)
        process.stderr.write(
          `[graceful-shutdown] the ingress exited ${JSON.stringify(pair.ingress.exit)}; its last lines:\n${pair.ingress.tail(60)}\n`,
        );
      expect(pair.ingress.exit).toEqual({ code: 0, signal: null });
      pair.ingress.start();
      await at(0.55);
      // The dispatcher is stopped while it is creating runs (a positive signal, not a moment in time:
      // after the ingress's restart its relay takes over again before runs flow).
      await eventually(
        async () => valueOf(await scrape(pair.dispatcherUrl), 'wts_runs_total', { outcome: 'created' }) > 0,
        60_000,
        'the dispatcher creating runs',
      );
      await pair.dispatcher.stop();
      if (pair.dispatcher.exit?.code !== 0)
        process.stderr.write(
          `[graceful-shutdown] the dispatcher exited ${JSON.stringify(pair.dispatcher.exit)}; its last lines:\n${pair.dispatcher.tail(60)}\n`,
        );
      expect(pair.dispatcher.exit).toEqual({ code: 0, signal: null });
      if (pair.broker) uncommitted = await handledButUncommitted(pair.broker.secured.adminBrokers);
      pair.dispatcher.start();
    };
    await Promise.all([stream.send(CONCURRENCY), chaos()]);

    const store = SqliteEventStore.open(join(pair.dataDir, 'events.sqlite'));
    try {
      let events: RecordedEvent[] = [];
      await eventually(
        async () => {
          events = [...(await store.readAll({ limit: 1_000_000, filter: { streamPrefixes: ['delivery-', 'run-'] } }))];
          return events.filter((event) => event.type === 'RunCreated').length >= DELIVERIES;
        },
        120_000,
        `every run (dispatcher:\n${pair.dispatcher.tail(20)})`,
      );
      const kept = new Map(
        events
          .filter((event) => event.type === 'DeliveryAccepted')
          .map((event) => [(event.data as { deliveryId: string }).deliveryId, event]),
      );
      const accepted = [...answers.values()].flatMap((seen) =>
        seen.filter((answer) => answer.status === 202).map((answer) => JSON.parse(answer.body) as { delivery_id: string; run_id: string }),
      );
      // Every 202 — including those answered while the ingress was closing — names a kept delivery.
      expect(accepted.filter((body) => !kept.has(body.delivery_id))).toEqual([]);
      // One delivery per key, one run per delivery.
      expect(new Set(accepted.map((body) => body.delivery_id)).size).toBe(DELIVERIES);
      expect(kept.size).toBe(DELIVERIES);
      const runs = events.filter((event) => event.type === 'RunCreated').map((event) => (event.data as { deliveryId: string }).deliveryId);
      expect(runs.length).toBe(DELIVERIES);
      expect(new Set(runs)).toEqual(new Set(kept.keys()));
      if (withKafka) {
        // Checked while the stopped dispatcher was down: its committed offsets covered exactly the
        // messages it had turned into runs.
        expect(uncommitted).toEqual([]);
      } else {
        // The successor created every remaining run and met none twice: the predecessor saved the
        // checkpoint of every run it created.
        expect(valueOf(await scrape(pair.dispatcherUrl), 'wts_runs_total', { outcome: 'already_created' })).toBe(0);
      }
      // Some senders met the closing or stopped ingress (a 503, a reset or a refused connection) and
      // tried again: the test exercised the window.
      expect([...attempts.values()].some((tries) => tries > 1)).toBe(true);
    } finally {
      await store.close();
    }
  }, 300_000);
});

/**
 * With the dispatcher stopped: the messages of webhooks.events.v1 whose delivery has a run although
 * their offset is not committed (handled, not committed), and those below the committed offset
 * without a run (committed, not handled). A message the relay sent twice (at-least-once) counts as
 * handled when its first copy was.
 */
async function handledButUncommitted(brokers: string): Promise<string[]> {
  const kafka = testKafka(brokers.split(','), 'sigterm-check');
  const committed = await committedOffsets(kafka, ConsumerGroups.runDispatcher, KafkaTopics.webhookEvents);
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(KafkaTopics.webhookEvents).finally(() => admin.disconnect());
  const total = ends.reduce((sum, end) => sum + Number(end.high) - Number(end.low), 0);
  const collector = await new MessageCollector(
    kafka,
    [KafkaTopics.webhookEvents],
    `sigterm-check-${randomBytes(4).toString('hex')}`,
  ).start();
  try {
    await eventually(async () => collector.messages.length >= total, 30_000, 'the topic read to its end');
  } finally {
    await collector.stop();
  }
  const store = SqliteEventStore.open(join(dataDirOf(), 'events.sqlite'));
  const withRun = new Set(
    (await store.readAll({ limit: 1_000_000, filter: { streamPrefixes: ['run-'] } })).map(
      (event) => (event.data as { deliveryId: string }).deliveryId,
    ),
  );
  await store.close();
  const accepted = collector.messages.filter(
    (message) =>
      message.headers[KafkaHeaders.eventType] === 'DeliveryAccepted' &&
      Number(message.offset) < Number(ends.find((end) => end.partition === message.partition)?.high ?? 0),
  );
  const below = (message: (typeof accepted)[number]): boolean => Number(message.offset) < (committed.get(message.partition) ?? -1);
  const handledIds = new Set(accepted.filter(below).map((message) => message.headers[KafkaHeaders.eventId]));
  const problems: string[] = [];
  for (const message of accepted) {
    const deliveryId = (JSON.parse(message.value?.toString('utf8') ?? '{}') as { deliveryId?: string }).deliveryId ?? '';
    const where = `p${message.partition}@${message.offset} ${deliveryId}`;
    if (below(message) && !withRun.has(deliveryId)) problems.push(`committed without a run: ${where}`);
    if (!below(message) && withRun.has(deliveryId) && !handledIds.has(message.headers[KafkaHeaders.eventId]))
      problems.push(`run created, offset not committed: ${where}`);
  }
  return problems;
}
