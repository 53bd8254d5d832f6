import { createKafkaClient, silentMessagingLogger } from './kafka-client.factory';

/**
 * Readiness of Kafka: a fresh admin connection asks the cluster for its brokers. A new connection
 * each time, so a dead broker is seen at once (a kept one would answer from its metadata cache);
 * one call per probe, seconds apart, costs nothing worth keeping a connection for.
 */
export function kafkaReadinessCheck(brokers: readonly string[], clientId: string): { readonly name: 'kafka'; check(): Promise<void> } {
  const kafka = createKafkaClient({ brokers, clientId: `${clientId}-health`, logger: silentMessagingLogger, connectionTimeoutMs: 1000, requestTimeoutMs: 1500 });
  return {
    name: 'kafka',
    async check(): Promise<void> {
      const admin = kafka.admin({ retry: { retries: 0 } });
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length === 0) throw new Error('the cluster reports no broker');
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
  };
}
