import { Partitioners, type Kafka, type Producer, type TopicMessages } from 'kafkajs';
import { RELAY_PRODUCER_TIMING } from './event-relay.tuning';

/**
 * The relay's idempotent producer (acks=all, one request in flight), connected on first use. A
 * failed idempotent producer may be stuck on a sequence number: after a failure the relay drops it
 * and the next send uses a new one.
 */
export class RelayProducer {
  private producer: Producer | undefined;

  constructor(private readonly kafka: Kafka) {}

  async sendBatch(topicMessages: TopicMessages[]): Promise<void> {
    const producer = await this.connected();
    await producer.sendBatch({ topicMessages, acks: -1, timeout: RELAY_PRODUCER_TIMING.ackTimeoutMs });
  }

  async drop(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }

  private async connected(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: RELAY_PRODUCER_TIMING.retry,
    });
    try {
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    this.producer = producer;
    return producer;
  }
}
