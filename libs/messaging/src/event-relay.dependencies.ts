import type { CheckpointStore, EventStore } from '@wts/event-store';
import type { Kafka } from 'kafkajs';
import type { RelayTuning } from './event-relay.tuning';
import type { MessagingLogger } from './kafka-client.factory';
import type { KafkaTopicNames, RelayDefinition } from './kafka-topics.contract';
import type { ParkRecorder } from './park-record';

/** What one term of a relay (EventRelay) works with. */
export interface EventRelayDependencies {
  readonly kafka: Kafka;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  readonly definition: RelayDefinition;
  readonly topics: KafkaTopicNames;
  readonly logger: MessagingLogger;
  readonly tuning: RelayTuning;
  /** Records, durably, an event the topic will not take (the store's `parked-<event id>`). */
  readonly recordPark: ParkRecorder;
  /** Checked before every produce and every checkpoint save: a suspended leader waits, a deposed one stops. */
  readonly stillLeading: () => boolean;
}
