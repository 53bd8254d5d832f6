import { eventually } from '@wts/testing';
import { Partitioners } from 'kafkajs';
import { uniqueName } from '../../../test/support/kafka-broker';
import { useFreshTopics } from '../../../test/support/kafka-topics.kit';
import { ConsumerLagMonitor, measureRetentionLag } from './consumer-lag.worker';
import type { MessagingLogger } from './kafka-client.factory';
import { ensureTopics } from './kafka-topics.admin';
import { TOPIC_RETENTION_MS } from './kafka-topics.contract';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The dispatcher's lag measured against the events topic's retention (real broker): unread
 * messages older than half the retention are "at risk" (a warning), messages gone before they were
 * read are counted (an error) — so a dispatcher down for long is seen long before deliveries expire.
 */
describe('consumer lag against retention (real broker)', () => {
  const fresh = useFreshTopics('lag');
  const { withAdmin } = fresh;
  let groupId: string;

  beforeEach(async () => {
    groupId = uniqueName('lag-group');
    // A fresh topic's metadata may not have reached every listener yet ("does not host this topic-partition").
    await eventually(
      async () => {
        await ensureTopics(fresh.kafka, fresh.topics, { webhookEvents: 1 });
        return true;
      },
      2000,
      'the topics to be created',
      500,
    );
    // Three messages written 5 days ago (past half of the 7-day retention), then two now.
    const producer = fresh.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const old = String(Date.now() - 5 * DAY_MS);
    await producer.send({
      topic: fresh.topics.webhookEvents,
      acks: -1,
      messages: [0, 1, 2].map((i) => ({ key: 'k', value: `old ${i}`, timestamp: old })),
    });
    await producer.send({ topic: fresh.topics.webhookEvents, acks: -1, messages: [3, 4].map((i) => ({ key: 'k', value: `new ${i}` })) });
    await producer.disconnect();
  }, 30_000);

  const commit = (offset: number): Promise<void> =>
    withAdmin((admin) =>
      admin.setOffsets({ groupId, topic: fresh.topics.webhookEvents, partitions: [{ partition: 0, offset: String(offset) }] }),
    );

  it('unread messages older than half the retention are at risk; once they are read, the rest is not', async () => {
    const behind = await withAdmin((admin) => measureRetentionLag(admin, fresh.topics.webhookEvents, groupId));
    expect(behind).toMatchObject({
      retentionMs: TOPIC_RETENTION_MS.webhookEvents,
      warnAfterMs: 3.5 * DAY_MS,
      lag: 5,
      atRisk: true,
      expiredUnread: 0,
    });

    await commit(3);
    const caughtUp = await withAdmin((admin) => measureRetentionLag(admin, fresh.topics.webhookEvents, groupId));
    expect(caughtUp).toMatchObject({ lag: 2, atRisk: false, expiredUnread: 0 });
    expect(caughtUp.partitions).toEqual([expect.objectContaining({ partition: 0, committed: 3, low: 0, high: 5, lag: 2 })]);
  }, 30_000);

  it('messages gone before they were read are counted, and the monitor logs an error and keeps the report', async () => {
    await commit(1);
    // Retention at work, made to happen now: the first three messages are gone.
    await withAdmin((admin) =>
      eventually(
        async () => {
          await admin.fetchTopicMetadata({ topics: [fresh.topics.webhookEvents] }); // kafkajs needs it loaded for deleteTopicRecords
          await admin.deleteTopicRecords({ topic: fresh.topics.webhookEvents, partitions: [{ partition: 0, offset: '3' }] });
          return true;
        },
        5000,
        "the first three records deleted (the broker's metadata may still be settling)",
        250,
      ),
    );
    const lines: { level: string; message: string }[] = [];
    const logger: MessagingLogger = {
      info: (_fields, message) => lines.push({ level: 'info', message }),
      warn: (_fields, message) => lines.push({ level: 'warn', message }),
      error: (_fields, message) => lines.push({ level: 'error', message }),
    };
    const monitor = new ConsumerLagMonitor(fresh.kafka, fresh.topics.webhookEvents, groupId, logger);
    const report = await monitor.measureNow();
    // Committed at 1, written up to 5: four unread, two of which are gone.
    expect(report).toMatchObject({ expiredUnread: 2, lag: 4 });
    expect(monitor.latest()).toBe(report);
    expect(lines).toEqual([{ level: 'error', message: expect.stringMatching(/expired from the topic before the dispatcher read them/) }]);
  }, 30_000);

  it('a dead-letter topic kept forever is never at risk', async () => {
    const report = await withAdmin((admin) => measureRetentionLag(admin, fresh.topics.webhookEventsDeadLetter, groupId));
    expect(report).toMatchObject({ retentionMs: -1, warnAfterMs: null, atRisk: false });
  });
});
