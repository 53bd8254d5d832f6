import { createKafkaClient, silentMessagingLogger, type KafkaConnection } from './kafka-client.factory';

/**
 * Consumer lag per partition as Kafka sees it (what `kafka-consumer-groups --describe` shows):
 * the topic's high watermark minus the group's committed offset. Asked of the broker when
 * Prometheus scrapes, so it is right whether the consumer is busy, stuck on a message or down,
 * and costs nothing on the message path. A fresh admin connection per scrape, seconds apart.
 */
export function consumerGroupLag(connection: KafkaConnection, groupId: string, topic: string): () => Promise<ReadonlyMap<number, number>> {
  const kafka = createKafkaClient({
    connection,
    clientId: `${groupId}-lag`,
    logger: silentMessagingLogger,
    connectionTimeoutMs: 1000,
    requestTimeoutMs: 2000,
  });
  return async () => {
    const admin = kafka.admin({ retry: { retries: 0 } });
    try {
      await admin.connect();
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
      const committedBy = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      const lag = new Map<number, number>();
      for (const end of ends) {
        const high = Number(end.high);
        const done = committedBy.get(end.partition) ?? -1;
        // -1: nothing committed yet; the group starts at the beginning (fromBeginning).
        lag.set(end.partition, Math.max(0, high - (done < 0 ? Number(end.low) : done)));
      }
      return lag;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };
}
