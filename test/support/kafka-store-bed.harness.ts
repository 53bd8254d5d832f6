import { SqliteEventStore } from '@wts/event-store';
import type { Kafka } from 'kafkajs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaTopicNames, type KafkaTopicNames } from '../../libs/messaging/src/kafka-topics.contract';
import { uniqueName } from './kafka-broker';
import { deleteTopics, testKafka } from './kafka-test-kit';

/** A consumer, relay or reader a test made on a bed: stopped when the bed closes. */
interface Stoppable {
  stop(): Promise<unknown>;
}

/**
 * What the consumer and relay beds share against the real broker: an event store in a temporary
 * directory, a name and topics of their own (under a fresh `label` prefix), a client, and what a
 * test made on them. `close()` stops those, then deletes the topics, the store and its directory.
 */
export abstract class KafkaStoreBed {
  readonly kafka: Kafka;
  readonly dir: string;
  readonly store: SqliteEventStore;
  readonly name: string;
  readonly topics: KafkaTopicNames;
  private readonly made: Stoppable[] = [];

  protected constructor(
    readonly brokers: readonly string[],
    label: string,
  ) {
    this.kafka = testKafka(brokers);
    this.dir = mkdtempSync(join(tmpdir(), `wts-${label}-`));
    this.store = SqliteEventStore.open(join(this.dir, 'events.sqlite'));
    this.name = uniqueName(label);
    this.topics = kafkaTopicNames(`${this.name}.`);
  }

  /** `thing`, stopped by close(). */
  protected stoppedOnClose<T extends Stoppable>(thing: T): T {
    this.made.push(thing);
    return thing;
  }

  async close(): Promise<void> {
    await Promise.all(this.made.splice(0).map((thing) => thing.stop()));
    await this.release();
    await deleteTopics(this.kafka, Object.values(this.topics));
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** What a bed holds besides the things made on it (a producer), let go before its topics are deleted. */
  protected async release(): Promise<void> {}
}
