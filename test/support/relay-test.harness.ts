import { SqliteEventStore } from '@wts/event-store';
import type { Kafka } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaTopicNames, type KafkaTopicNames } from '../../libs/messaging/src/kafka-topics.contract';
import { uniqueName } from './kafka-broker';
import { deleteTopics, testKafka } from './kafka-test-kit';

/**
 * What a test of the relays needs against the real broker: an event store in a temporary directory,
 * a relay name and topics of its own (under a fresh `label` prefix), a client. `close()` deletes the
 * topics and the directory; stop what uses them first.
 */
export class RelayTestBed {
  private constructor(
    readonly kafka: Kafka,
    readonly dir: string,
    readonly store: SqliteEventStore,
    readonly name: string,
    readonly topics: KafkaTopicNames,
  ) {}

  static open(brokers: readonly string[], label: string): RelayTestBed {
    const dir = mkdtempSync(join(tmpdir(), `wts-${label}-`));
    const name = uniqueName(label);
    return new RelayTestBed(testKafka(brokers), dir, SqliteEventStore.open(join(dir, 'events.sqlite')), name, kafkaTopicNames(`${name}.`));
  }

  async close(): Promise<void> {
    await deleteTopics(this.kafka, Object.values(this.topics));
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
