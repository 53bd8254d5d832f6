import { KafkaRelaySupervisor, type KafkaRelaySettings } from '../../libs/messaging/src/kafka-relay.supervisor';
import type { RelayDefinition } from '../../libs/messaging/src/kafka-topics.contract';
import { kafkaBrokers } from './kafka-broker';
import { KafkaStoreBed } from './kafka-store-bed.harness';
import { MessageCollector } from './kafka-test-kit';
import { useClosable } from './per-test.kit';

/**
 * What a test of the relays needs against the real broker: a store, a relay name and topics of its
 * own (a KafkaStoreBed); relays and readers made on them, stopped by `close()`.
 */
export class RelayTestBed extends KafkaStoreBed {
  private readers = 0;

  static open(brokers: readonly string[], label: string): RelayTestBed {
    return new RelayTestBed(brokers, label);
  }

  /** A relay of `definition` from the bed's store (its checkpoints) to its topics, not started. */
  relay(definition: RelayDefinition, overrides: Partial<KafkaRelaySettings> = {}): KafkaRelaySupervisor {
    return this.stoppedOnClose(
      new KafkaRelaySupervisor({
        connection: { brokers: [...this.brokers] },
        definition,
        store: this.store,
        checkpoints: this.store.checkpoints(),
        topics: this.topics,
        ...overrides,
      }),
    );
  }

  /** A reader of `topics` from the beginning, in a group of its own (`<name>-reader-<n>`), started. */
  reader(topics: readonly string[]): Promise<MessageCollector> {
    return this.stoppedOnClose(new MessageCollector(this.kafka, topics, `${this.name}-reader-${this.readers++}`)).start();
  }
}

/** Call it in a describe: a bed under `label` opened before each test and closed after it; `bed()` is the current one. */
export function useRelayTestBed(label: string): () => RelayTestBed {
  const brokers = kafkaBrokers();
  return useClosable('relay test bed', () => RelayTestBed.open(brokers, label));
}
