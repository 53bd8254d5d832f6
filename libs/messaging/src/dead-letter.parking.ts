import { describeError, retryWithBackoff, type RetryOptions } from '@wts/application';
import type { KafkaMessage, Producer } from 'kafkajs';
import type { ConsumerFailure } from './consumer-failure.errors';
import type { MessagingLogger } from './kafka-client.factory';
import { KafkaHeaders, type KafkaTopicNames } from './kafka-topics.contract';
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
 * `recordPark`), then produced with its error to the dead-letter topic — never dropped, never
 * blocking the partition. Retried as the caller says (in place, heartbeating) until both hold.
 */
export class DeadLetterParking {
  constructor(
    private readonly settings: DeadLetterSettings,
    private readonly producer: () => Producer | undefined,
  ) {}

  /** Records the park (recordPark), then produces the original message, with its error, to the dead-letter topic and waits for the ack. */
  async park(location: MessageLocation, message: KafkaMessage, failure: ConsumerFailure, retry: RetryOptions): Promise<boolean> {
    const headers = {
      ...message.headers,
      [KafkaHeaders.error]: failure.message,
      [KafkaHeaders.errorCode]: failure.code,
      [KafkaHeaders.originalTopic]: location.topic,
      [KafkaHeaders.originalPartition]: String(location.partition),
      [KafkaHeaders.originalOffset]: message.offset,
    };
    let recorded = this.settings.recordPark === undefined;
    const parked = await retryWithBackoff(
      async () => {
        if (!recorded) {
          await this.settings.recordPark?.(parkRecordOfMessage(location, message, failure));
          recorded = true;
        }
        const producer = this.producer();
        if (!producer) throw new Error('dead-letter producer is not connected');
        await producer.send({
          topic: this.settings.topics.webhookEventsDeadLetter,
          acks: -1,
          messages: [{ key: message.key, value: message.value, headers }],
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
