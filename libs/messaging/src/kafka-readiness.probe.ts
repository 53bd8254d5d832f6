import type { Admin } from 'kafkajs';
import { createKafkaClient, silentMessagingLogger, type KafkaConnection } from './kafka-client.factory';

/**
 * Readiness of Kafka: one long-lived admin connection asks the cluster for its brokers (a metadata
 * request that goes to a broker every time, so a dead one fails it). A failed check drops the
 * connection, and the next one connects afresh; close() ends it with the service. Probes share
 * checks (at most one a second: sharedReadinessCheck), so this is a request a second at most.
 */
export function kafkaReadinessCheck(
  connection: KafkaConnection,
  clientId: string,
): { readonly name: 'kafka'; check(): Promise<void>; close(): Promise<void> } {
  const kafka = createKafkaClient({
    connection,
    clientId: `${clientId}-health`,
    logger: silentMessagingLogger,
    connectionTimeoutMs: 1000,
    requestTimeoutMs: 1500,
  });
  let admin: Admin | undefined;
  const drop = async (): Promise<void> => {
    const current = admin;
    admin = undefined;
    await current?.disconnect().catch(() => undefined);
  };
  return {
    name: 'kafka',
    async check(): Promise<void> {
      try {
        if (!admin) {
          admin = kafka.admin({ retry: { retries: 0 } });
          await admin.connect();
        }
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length === 0) throw new Error('the cluster reports no broker');
      } catch (error) {
        await drop();
        throw error;
      }
    },
    close: drop,
  };
}
