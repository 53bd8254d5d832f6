import { systemClock } from '@wts/application';
import { describeError, retryWithBackoff, type RetryOptions } from '@wts/runtime';
import type { KafkaMessage, Producer } from 'kafkajs';
import type { ConsumerFailure } from './consumer-failure.errors';
import { deadLetterOf } from './dead-letter-reference.mapper';
import type { MessagingLogger } from './kafka-client.factory';
import type { KafkaTopicNames } from './kafka-topics.contract';
import type { ParkRecorder } from './park-record';
import { parkRecordOfMessage } from './park-record.mapper';

export interface MessageLocation {
  readonly topic: string;
  readonly partition: number;
}

export interface DeadLetterSettings {
  readonly topics: KafkaTopicNames;
  readonly logger: MessagingLogger;
  readonly recordPark?: ParkRecorder;
  readonly onDeadLetter?: () => void;
}

/**
 * Where the consumer puts a message it can never handle: recorded as a park (in the store, through
 * `recordPark`), then a reference to it, with its error, produced to the dead-letter topic — never
 * dropped, never blocking the partition. The topic is kept forever, so it gets no payload: not the
 * value, not a header that is not an identifier (deadLetterOf). Retried as the caller says (in
 * place, heartbeating) until both hold.
 */
export class DeadLetterParking {
  constructor(
    private readonly settings: DeadLetterSettings,
    private readonly producer: () => Producer | undefined,
  ) {}

  /** Records the park (recordPark), then produces a reference to the message, with its error, to the dead-letter topic and waits for the ack. */
  async park(location: MessageLocation, message: KafkaMessage, failure: ConsumerFailure, retry: RetryOptions): Promise<boolean> {
    const record = parkRecordOfMessage(location, message, failure);
    const deadLetter = deadLetterOf(location, message, failure, record, systemClock.now());
    let recorded = this.settings.recordPark === undefined;
    const parked = await retryWithBackoff(
      async () => {
        if (!recorded) {
          await this.settings.recordPark?.(record);
          recorded = true;
        }
        const producer = this.producer();
        if (!producer) throw new Error('dead-letter producer is not connected');
        await producer.send({
          topic: this.settings.topics.webhookEventsDeadLetter,
          acks: -1,
          messages: [deadLetter],
        });
        this.settings.onDeadLetter?.();
        this.settings.logger.error(
          { ...location, offset: message.offset, code: failure.code, err: failure.message },
          'message parked on the dead-letter topic',
        );
      },
      {
        ...retry,
        onFailure: (error) =>
          this.settings.logger.warn(
            { ...location, offset: message.offset, err: describeError(error) },
            'recording the park or producing the dead letter failed; retrying',
          ),
      },
    );
    return parked.kind === 'done';
  }
}
