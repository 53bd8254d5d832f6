import { SqliteEventStore } from '@wts/event-store';
import type { Kafka } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaRelaySupervisor, type KafkaRelaySettings } from '../../libs/messaging/src/kafka-relay.supervisor';
import { kafkaTopicNames, type KafkaTopicNames, type RelayDefinition } from '../../libs/messaging/src/kafka-topics.contract';
import { kafkaBrokers, uniqueName } from './kafka-broker';
import { MessageCollector, deleteTopics, testKafka } from './kafka-test-kit';
import { useClosable } from './per-test.kit';

/**
 * What a test of the relays needs against the real broker: an event store in a temporary directory,
 * a relay name and topics of its own (under a fresh `label` prefix), a client; relays and readers
 * made on them. `close()` stops those, then deletes the topics and the directory.
 */
export class RelayTestBed {
  private readonly relays: KafkaRelaySupervisor[] = [];
  private readonly readers: MessageCollector[] = [];

  private constructor(
    readonly brokers: readonly string[],
    readonly kafka: Kafka,
    readonly dir: string,
    readonly store: SqliteEventStore,
    readonly name: string,
    readonly topics: KafkaTopicNames,
  ) {}

  static open(brokers: readonly string[], label: string): RelayTestBed {
    const dir = mkdtempSync(join(tmpdir(), `wts-${label}-`));
    const name = uniqueName(label);
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    return new RelayTestBed(brokers, testKafka(brokers), dir, store, name, kafkaTopicNames(`${name}.`));
  }

  /** A relay of `definition` from the bed's store (its checkpoints) to its topics, not started; stopped by close(). */
  relay(definition: RelayDefinition, overrides: Partial<KafkaRelaySettings> = {}): KafkaRelaySupervisor {
    const relay = new KafkaRelaySupervisor({
      connection: { brokers: [...this.brokers] },
      definition,
      store: this.store,
      checkpoints: this.store.checkpoints(),
      topics: this.topics,
      ...overrides,
    });
    this.relays.push(relay);
    return relay;
  }

  /** A reader of `topics` from the beginning, in a group of its own (`<name>-reader-<n>`), started; stopped by close(). */
  async reader(topics: readonly string[]): Promise<MessageCollector> {
    const reader = new MessageCollector(this.kafka, topics, `${this.name}-reader-${this.readers.length}`);
    this.readers.push(reader);
    return reader.start();
  }

  async close(): Promise<void> {
    await Promise.all(this.relays.splice(0).map((relay) => relay.stop()));
    await Promise.all(this.readers.splice(0).map((reader) => reader.stop()));
    await deleteTopics(this.kafka, Object.values(this.topics));
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Call it in a describe: a bed under `label` opened before each test and closed after it; `bed()` is the current one. */
export function useRelayTestBed(label: string): () => RelayTestBed {
  const brokers = kafkaBrokers();
  return useClosable('relay test bed', () => RelayTestBed.open(brokers, label));
}
