import type { Admin, Kafka } from 'kafkajs';
import { ensureTopics } from './kafka-topics.admin';
import { kafkaTopicNames } from './kafka-topics.contract';

/** An admin whose createTopics fails as a busy broker makes kafkajs' waitForLeaders fail, and whose metadata shows leaders after `missing` asks. */
function busyBrokerAdmin(missing: number): { kafka: Kafka; metadataAsks: () => number } {
  let asks = 0;
  const unknown = Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => [],
    createTopics: async () => {
      throw unknown;
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      asks += 1;
      if (asks <= missing) throw unknown;
      return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: asks <= missing + 1 ? -1 : 1 }] })) };
    },
  } as unknown as Admin;
  return { kafka: { admin: () => admin } as unknown as Kafka, metadataAsks: () => asks };
}

describe('ensureTopics on a busy broker', () => {
  it('given a created topic whose leaders the broker does not know yet, when kafkajs gives up waiting, then it waits for every partition to have a leader', async () => {
    const { kafka, metadataAsks } = busyBrokerAdmin(2);
    const topics = kafkaTopicNames('busy.');
    await expect(ensureTopics(kafka, topics, {}, { roles: ['relayLeadership'] })).resolves.toEqual({});
    // Two "does not host", one answer without a leader, then the leader.
    expect(metadataAsks()).toBe(4);
  });

  it('given any other failure to create, then it is thrown as before', async () => {
    const failing = {
      connect: async () => undefined,
      disconnect: async () => undefined,
      listTopics: async () => [],
      createTopics: async () => {
        throw Object.assign(new Error('not authorized'), { type: 'TOPIC_AUTHORIZATION_FAILED' });
      },
    } as unknown as Admin;
    const kafka = { admin: () => failing } as unknown as Kafka;
    await expect(ensureTopics(kafka, kafkaTopicNames('busy.'), {}, { roles: ['relayLeadership'] })).rejects.toThrow('not authorized');
  });
});
