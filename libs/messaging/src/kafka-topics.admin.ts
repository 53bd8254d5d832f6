import type { Kafka } from 'kafkajs';
import { DEFAULT_PARTITIONS, type KafkaTopicNames, type TopicRole } from './kafka-topics.contract';

export type TopicPartitions = { readonly [R in TopicRole]?: number };

/**
 * Creates the missing topics (idempotent: an existing topic is left as it is, and a replica that
 * loses the creation race to another one is fine). Partitions default to DEFAULT_PARTITIONS.
 */
export async function ensureTopics(kafka: Kafka, topics: KafkaTopicNames, partitions: TopicPartitions = {}): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    for (const role of Object.keys(topics) as TopicRole[]) {
      const topic = topics[role];
      if (existing.has(topic)) continue;
      try {
        await admin.createTopics({
          topics: [{ topic, numPartitions: partitions[role] ?? DEFAULT_PARTITIONS[role] }],
          waitForLeaders: true,
        });
      } catch (error) {
        if (!isTopicAlreadyExists(error)) throw error;
      }
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

function isTopicAlreadyExists(error: unknown): boolean {
  const nested = (error as { errors?: unknown[] } | null)?.errors;
  if (Array.isArray(nested) && nested.length > 0) return nested.every(isTopicAlreadyExists);
  return (error as { type?: unknown } | null)?.type === 'TOPIC_ALREADY_EXISTS';
}
