import { StreamCategories, Streams } from '@wts/contracts';
import { comparePositions, SqliteEventStore, type GlobalPosition } from '@wts/event-store';
import { ConsumerGroups, DEFAULT_PARTITIONS, KafkaTopics } from '@wts/messaging';
import { eventually } from '@wts/testing';
import { Partitioners, type Kafka, type PartitionMetadata } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../support/admin-client';
import { sendAccepted } from '../support/delivery-sender';
import { expectOneRunEachInAcceptanceOrder } from '../support/run-per-delivery.assertions';
import { runKafkaScript, startKafkaBroker } from '../support/kafka-broker';
import { committedOffsets, testKafka, topicOffsets, topicSize } from '../support/kafka-test-kit';
import { releaseUntilRunsAreMade, startInspectedPair, type WebhookAnswer } from '../support/inspected-pair.harness';
import { ServiceProcess, assertBuilt } from '../support/service-processes';
import { acceptedDeliveries, createdRuns } from '../support/store-inspection';

/** The partition kafkajs's DefaultPartitioner (the relay's) sends a key to, on the topic as the broker describes it. */
function partitionOf(key: string, partitions: PartitionMetadata[]): number {
  const partitioner = Partitioners.DefaultPartitioner();
  return partitioner({ topic: KafkaTopics.webhookEvents, partitionMetadata: partitions, message: { key, value: null } });
}

async function topicPartitions(kafka: Kafka, topic: string): Promise<PartitionMetadata[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0]?.partitions ?? [];
  } finally {
    await admin.disconnect();
  }
}

/** A partition's high watermark (messages it holds: nothing is compacted or expired here). */
async function highWatermark(kafka: Kafka, topic: string, partition: number): Promise<number> {
  return (await topicOffsets(kafka, topic)).get(partition)?.high ?? -1;
}

/**
 * Hold and release on the Kafka shape: the ingress (relay store → webhooks.events.v1) and the
 * run-dispatcher (consumer of that topic) as processes from the build, on a broker of the test's own
 * (kafka.sh, plain listener: the services use the production topic and group names, so no other
 * test's messages are in the way). A held webhook A receives 1,000 deliveries while another webhook
 * B, chosen to share A's partition, receives 100: B's runs are all made during the hold and the
 * dispatcher's committed offset passes every held message (the hold blocks nothing on the
 * partition), A gets none. The release runs A's deliveries from the store (ReleaseDrainWorker), the
 * dispatcher is killed (-9) in the middle of it and started again, and in the end A has exactly one
 * run per delivery, each after the release, made in acceptance order.
 */
describe('hold and release (Kafka shape, a flowing webhook on the held one’s partition, kill -9 during the release)', () => {
  const HELD = 1000;
  const FLOWING = 100;
  /** Webhooks set up at most to find one on A's partition: (3/4)^40 ≈ 1e-5 with 4 partitions. */
  const CANDIDATES = 40;
  let brokerEnv: NodeJS.ProcessEnv | undefined;
  let kafka: Kafka;
  let dataDir: string;
  let ingress: ServiceProcess | undefined;
  let dispatcher: ServiceProcess | undefined;
  let admin: AdminClient;
  let store: SqliteEventStore | undefined;

  beforeAll(async () => {
    assertBuilt();
    // A broker of this test's own (about 5 s): the services' topics and consumer group are the production names.
    brokerEnv = { KAFKA_DATA_DIR: mkdtempSync(join(tmpdir(), 'wts-e2e-hold-kafka-broker-')), KAFKA_OWNER_CLEANUP: '1' };
    const brokers = await startKafkaBroker(brokerEnv);
    kafka = testKafka(brokers.split(','), 'hold-release-test');
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-hold-kafka-'));
    ({ ingress, dispatcher, admin, store } = await startInspectedPair(dataDir, { KAFKA_BROKERS: brokers }));
  }, 90_000);

  afterAll(async () => {
    await ingress?.stop();
    await dispatcher?.stop();
    await store?.close();
    if (brokerEnv) await runKafkaScript('clean', brokerEnv);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const send = sendAccepted;

  const view = async (routineId: string): Promise<WebhookAnswer> =>
    (await admin.call<WebhookAnswer>('GET', `/admin/routines/${routineId}/webhook`)).body;

  it('holds 1,000 deliveries, lets a webhook on the same partition flow, and runs each held one once, in order, after release', async () => {
    const t0 = Date.now();
    const db = store as SqliteEventStore;
    const webhookIdOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);
    const held = await admin.setUpWebhook('held@example.com');
    const heldId = webhookIdOf(held.url);

    // The topic as the services created it (DEFAULT_PARTITIONS), and the partition each webhook's key goes to.
    const partitions = await eventually(
      async () => {
        const found = await topicPartitions(kafka, KafkaTopics.webhookEvents);
        return found.length > 0 && found.every((entry) => entry.leader >= 0) ? found : undefined;
      },
      30_000,
      `${KafkaTopics.webhookEvents} to exist`,
    );
    expect(partitions).toHaveLength(DEFAULT_PARTITIONS.webhookEvents);
    const partition = partitionOf(heldId, partitions);
    let flowing: Awaited<ReturnType<AdminClient['setUpWebhook']>> | undefined;
    let candidates = 0;
    while (!flowing && candidates < CANDIDATES) {
      const candidate = await admin.setUpWebhook(`flow${candidates++}@example.com`);
      if (partitionOf(webhookIdOf(candidate.url), partitions) === partition) flowing = candidate;
    }
    if (!flowing) throw new Error(`none of ${CANDIDATES} webhooks landed on partition ${partition} of ${partitions.length}`);
    const flowingId = webhookIdOf(flowing.url);

    const hold = await admin.call<WebhookAnswer>('POST', `/admin/routines/${held.routineId}/webhook/hold`, {});
    expect(hold.status).toBe(200);
    expect(hold.body).toMatchObject({ held: true, held_by: 'bootstrap token', release_at: null });
    const watermarkBefore = await highWatermark(kafka, KafkaTopics.webhookEvents, partition);

    // Held deliveries and the flowing webhook's, at the same time, on one partition.
    const [heldAccepted, flowingAccepted] = await Promise.all([
      send(held.url, held.secret, HELD, 'held'),
      send(flowing.url, flowing.secret, FLOWING, 'flow'),
    ]);
    expect(heldAccepted).toHaveLength(HELD);
    expect(flowingAccepted).toHaveLength(FLOWING);
    const sentAt = Date.now();
    await eventually(
      async () => (await createdRuns(db, flowing.routineId)).length === FLOWING,
      30_000,
      `the flowing webhook's runs (dispatcher output:\n${dispatcher?.tail()})`,
    );
    const flowedAt = Date.now();
    // They really share the partition: all 1,100 DeliveryAccepted went there (with a few lifecycle
    // events), and the dispatcher has committed past every message on it — every held one passed
    // over without a run. (The relay may still be forwarding the last few: compare with the
    // watermark as it is at each look.)
    let last = { high: -1, committed: -1 };
    await eventually(
      async () => {
        const high = await highWatermark(kafka, KafkaTopics.webhookEvents, partition);
        const committed = (await committedOffsets(kafka, ConsumerGroups.runDispatcher, KafkaTopics.webhookEvents)).get(partition) ?? -1;
        last = { high, committed };
        return high - watermarkBefore >= HELD + FLOWING && committed === high ? true : undefined;
      },
      30_000,
      `partition ${partition} to hold every delivery of both webhooks and the dispatcher to commit past them`,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; last look: ${JSON.stringify(last)}`);
    });
    expect(await createdRuns(db, held.routineId)).toHaveLength(0);

    const heldView = await eventually(
      async () => {
        const answer = await view(held.routineId);
        return answer.held_deliveries === HELD ? answer : undefined;
      },
      30_000,
      'the view to count the held deliveries',
    );
    expect(heldView).toMatchObject({ held: true, held_by: 'bootstrap token' });

    // Release, and kill -9 the dispatcher while it is making the held runs.
    const { releasedAt, made: killedAt } = await releaseUntilRunsAreMade({ admin, store: db, dispatcher }, held.routineId);
    await dispatcher?.kill9();
    const atKill = (await createdRuns(db, held.routineId)).length;
    dispatcher?.start();

    const runs = await eventually(
      async () => {
        const made = await createdRuns(db, held.routineId);
        return made.length >= HELD ? made : undefined;
      },
      45_000,
      `every held delivery to have its run (dispatcher output:\n${dispatcher?.tail()})`,
    );
    const drainedAt = Date.now();
    // The kill really fell in the middle of the release.
    expect(killedAt).toBeLessThan(HELD);
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(HELD);

    // Exactly one run per held delivery, each the one its delivery (and its 202) names, in acceptance order …
    const deliveries = await acceptedDeliveries(db, held.routineId);
    expect(deliveries).toHaveLength(HELD);
    expectOneRunEachInAcceptanceOrder(deliveries, runs);
    expect(new Set(runs.map((r) => (r.data as { runId: string }).runId))).toEqual(new Set(heldAccepted.map((body) => body.run_id)));
    // … and only after the release, while every run of the flowing webhook came before it.
    const webhookEvents = await db.readStream(Streams.webhook(heldId));
    const releaseEvents = webhookEvents.filter((event) => event.type === 'WebhookReleased');
    expect(releaseEvents).toHaveLength(1);
    const releasePosition: GlobalPosition = releaseEvents[0].position;
    expect(runs.filter((run) => comparePositions(run.position, releasePosition) < 0)).toEqual([]);
    const flowingRuns = await createdRuns(db, flowing.routineId);
    expect(flowingRuns).toHaveLength(FLOWING);
    expect(flowingRuns.filter((run) => comparePositions(run.position, releasePosition) > 0)).toEqual([]);
    expect(new Set(flowingRuns.map((r) => (r.data as { runId: string }).runId))).toEqual(
      new Set(flowingAccepted.map((body) => body.run_id)),
    );

    // Nothing parked, nothing dead-lettered; the view counts no waiting delivery.
    const parked = await db.readAll({ limit: 100_000, filter: { streamPrefixes: [StreamCategories.parked] } });
    expect(parked).toEqual([]);
    expect(await topicSize(kafka, KafkaTopics.webhookEventsDeadLetter)).toBe(0);
    const after = await eventually(
      async () => {
        const answer = await view(held.routineId);
        return answer.held_deliveries === 0 ? answer : undefined;
      },
      30_000,
      'the view to count no waiting delivery',
    );
    expect(after).toMatchObject({ held: false, held_since: null, held_by: null });
    process.stderr.write(
      `[hold-release-kafka] partition ${partition}/${partitions.length} shared by ${heldId} and ${flowingId} (after ${candidates} candidates); ` +
        `${HELD}+${FLOWING} deliveries sent in ${sentAt - t0} ms, the flowing webhook's runs ${flowedAt - sentAt} ms later; ` +
        `release: kill -9 at ${atKill} runs, all ${HELD} runs ${drainedAt - releasedAt} ms after the release\n`,
    );
  }, 120_000);
});
