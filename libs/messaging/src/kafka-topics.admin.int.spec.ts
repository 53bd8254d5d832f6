import { ensureTopics } from './kafka-topics.admin';
import { useFreshTopics } from '../../../test/support/kafka-topics.kit';
import { TOPIC_MAX_MESSAGE_BYTES, TOPIC_RETENTION_MS } from './kafka-topics.contract';

/** Topic creation against the real broker: partitions, and the max.message.bytes the relays need. */
describe('ensureTopics (real broker)', () => {
  const fresh = useFreshTopics('topics');
  const { withAdmin, createTopics, topicConfigs } = fresh;

  it('creates the event topics with max.message.bytes = 16 MiB, and is idempotent', async () => {
    await ensureTopics(fresh.kafka, fresh.topics, { webhookEvents: 2 });
    await ensureTopics(fresh.kafka, fresh.topics, { webhookEvents: 2 });
    for (const topic of [fresh.topics.webhookEvents, fresh.topics.webhookEventsDeadLetter, fresh.topics.routineRuns]) {
      expect((await topicConfigs(topic)).get('max.message.bytes')).toBe(String(TOPIC_MAX_MESSAGE_BYTES));
    }
    const metadata = await withAdmin((admin) =>
      admin.fetchTopicMetadata({ topics: [fresh.topics.webhookEvents, fresh.topics.relayLeadership] }),
    );
    const partitions = new Map(metadata.topics.map((topic) => [topic.name, topic.partitions.length]));
    expect(partitions.get(fresh.topics.webhookEvents)).toBe(2);
    expect(partitions.get(fresh.topics.relayLeadership)).toBe(1);
  });

  it('raises the limit of an existing topic that is below it, keeping its other settings, and never lowers one above it', async () => {
    await createTopics([
      // As an older version created it, with an operator's retention on top.
      { topic: fresh.topics.webhookEvents, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
      {
        topic: fresh.topics.routineRuns,
        numPartitions: 1,
        configEntries: [{ name: 'max.message.bytes', value: String(32 * 1024 * 1024) }],
      },
    ]);
    await ensureTopics(fresh.kafka, fresh.topics);
    const events = await topicConfigs(fresh.topics.webhookEvents);
    expect(events.get('max.message.bytes')).toBe(String(TOPIC_MAX_MESSAGE_BYTES));
    expect(events.get('retention.ms')).toBe('3600000');
    expect((await topicConfigs(fresh.topics.routineRuns)).get('max.message.bytes')).toBe(String(32 * 1024 * 1024));
  });

  it('sets retention as DESIGN says: the dead-letter topic keeps forever, the event topics their own retention (not the broker default)', async () => {
    await ensureTopics(fresh.kafka, fresh.topics);
    expect((await topicConfigs(fresh.topics.webhookEventsDeadLetter)).get('retention.ms')).toBe('-1');
    expect((await topicConfigs(fresh.topics.webhookEvents)).get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.webhookEvents));
    expect((await topicConfigs(fresh.topics.routineRuns)).get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.routineRuns));
  });

  it("on existing topics: a dead-letter topic with a finite retention is set to forever; an event topic without its own retention gets ours; an operator's is kept", async () => {
    await createTopics([
      { topic: fresh.topics.webhookEventsDeadLetter, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '86400000' }] },
      { topic: fresh.topics.webhookEvents, numPartitions: 1 },
      { topic: fresh.topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
    ]);
    await ensureTopics(fresh.kafka, fresh.topics);
    expect((await topicConfigs(fresh.topics.webhookEventsDeadLetter)).get('retention.ms')).toBe('-1');
    expect((await topicConfigs(fresh.topics.webhookEvents)).get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.webhookEvents));
    expect((await topicConfigs(fresh.topics.routineRuns)).get('retention.ms')).toBe('3600000');
  });
});
