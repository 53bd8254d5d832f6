import { ConfigResourceTypes, type Admin, type ITopicConfig, type Kafka } from 'kafkajs';
import { kafkaBrokers, uniqueName } from '../../../test/support/kafka-broker';
import { deleteTopics, testKafka } from '../../../test/support/kafka-test-kit';
import { ensureTopics } from './kafka-topics.admin';
import { TOPIC_MAX_MESSAGE_BYTES, TOPIC_RETENTION_MS, kafkaTopicNames, type KafkaTopicNames } from './kafka-topics.contract';

/** Topic creation against the real broker: partitions, and the max.message.bytes the relays need. */
describe('ensureTopics (real broker)', () => {
  const brokers = kafkaBrokers();
  let kafka: Kafka;
  let topics: KafkaTopicNames;

  beforeEach(() => {
    kafka = testKafka(brokers);
    topics = kafkaTopicNames(`${uniqueName('topics')}.`);
  });

  afterEach(async () => {
    await deleteTopics(kafka, Object.values(topics));
  });

  async function withAdmin<T>(use: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return await use(admin);
    } finally {
      await admin.disconnect();
    }
  }

  /** Topics as something else (an older version, an operator) created them. */
  async function createTopics(existing: ITopicConfig[]): Promise<void> {
    await withAdmin((admin) => admin.createTopics({ topics: existing, waitForLeaders: true }));
  }

  async function topicConfigs(topic: string): Promise<Map<string, string>> {
    const described = await withAdmin((admin) =>
      admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false }),
    );
    return new Map(described.resources[0].configEntries.map((entry) => [entry.configName, entry.configValue]));
  }

  it('creates the event topics with max.message.bytes = 16 MiB, and is idempotent', async () => {
    await ensureTopics(kafka, topics, { webhookEvents: 2 });
    await ensureTopics(kafka, topics, { webhookEvents: 2 });
    for (const topic of [topics.webhookEvents, topics.webhookEventsDeadLetter, topics.routineRuns]) {
      expect((await topicConfigs(topic)).get('max.message.bytes')).toBe(String(TOPIC_MAX_MESSAGE_BYTES));
    }
    const metadata = await withAdmin((admin) => admin.fetchTopicMetadata({ topics: [topics.webhookEvents, topics.relayLeadership] }));
    const partitions = new Map(metadata.topics.map((topic) => [topic.name, topic.partitions.length]));
    expect(partitions.get(topics.webhookEvents)).toBe(2);
    expect(partitions.get(topics.relayLeadership)).toBe(1);
  });

  it('raises the limit of an existing topic that is below it, keeping its other settings, and never lowers one above it', async () => {
    await createTopics([
      // As an older version created it, with an operator's retention on top.
      { topic: topics.webhookEvents, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
      { topic: topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: String(32 * 1024 * 1024) }] },
    ]);
    await ensureTopics(kafka, topics);
    const events = await topicConfigs(topics.webhookEvents);
    expect(events.get('max.message.bytes')).toBe(String(TOPIC_MAX_MESSAGE_BYTES));
    expect(events.get('retention.ms')).toBe('3600000');
    expect((await topicConfigs(topics.routineRuns)).get('max.message.bytes')).toBe(String(32 * 1024 * 1024));
  });

  it('sets retention as DESIGN says: the dead-letter topic keeps forever, the event topics their own retention (not the broker default)', async () => {
    await ensureTopics(kafka, topics);
    expect((await topicConfigs(topics.webhookEventsDeadLetter)).get('retention.ms')).toBe('-1');
    expect((await topicConfigs(topics.webhookEvents)).get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.webhookEvents));
    expect((await topicConfigs(topics.routineRuns)).get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.routineRuns));
  });

  it("on existing topics: a dead-letter topic with a finite retention is set to forever; an event topic without its own retention gets ours; an operator's is kept", async () => {
    await createTopics([
      { topic: topics.webhookEventsDeadLetter, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '86400000' }] },
      { topic: topics.webhookEvents, numPartitions: 1 },
      { topic: topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
    ]);
    await ensureTopics(kafka, topics);
    expect((await topicConfigs(topics.webhookEventsDeadLetter)).get('retention.ms')).toBe('-1');
    expect((await topicConfigs(topics.webhookEvents)).get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.webhookEvents));
    expect((await topicConfigs(topics.routineRuns)).get('retention.ms')).toBe('3600000');
  });
});
