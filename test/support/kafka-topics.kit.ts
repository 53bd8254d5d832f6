/** Topics of each test's own on the real broker, and the admin calls the topic specs make on them. */
import { ConfigResourceTypes, type Admin, type ITopicConfig, type Kafka } from 'kafkajs';
import { createTopicsWithLeaders } from '../../libs/messaging/src/kafka-topics.admin';
import { kafkaTopicNames, type KafkaTopicNames } from '../../libs/messaging/src/kafka-topics.contract';
import { kafkaBrokers, uniqueName } from './kafka-broker';
import { deleteTopics, testKafka } from './kafka-test-kit';

export interface FreshTopics {
  readonly brokers: string[];
  /** This test's client and topic names (new before each test; the topics deleted after it). */
  readonly kafka: Kafka;
  /** The prefix of the topic names (`--topic-prefix` of a CLI replay to them). */
  readonly prefix: string;
  readonly topics: KafkaTopicNames;
  readonly withAdmin: <T>(use: (admin: Admin) => Promise<T>) => Promise<T>;
  /** Topics as something else (an older version, an operator) created them. */
  readonly createTopics: (existing: ITopicConfig[]) => Promise<void>;
  readonly topicConfigs: (topic: string) => Promise<Map<string, string>>;
}

/**
 * Call it in a describe: topic names under a fresh `label` prefix before each test, and those topics
 * deleted after each (`'all'`: once for the describe's tests, deleted after them).
 */
export function useFreshTopics(label: string, scope: 'each' | 'all' = 'each'): FreshTopics {
  const brokers = kafkaBrokers();
  let kafka: Kafka | undefined;
  let prefix: string | undefined;
  let topics: KafkaTopicNames | undefined;
  const [before, after] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];

  before(() => {
    kafka = testKafka(brokers);
    prefix = `${uniqueName(label)}.`;
    topics = kafkaTopicNames(prefix);
  });

  after(async () => {
    await deleteTopics(fresh.kafka, Object.values(fresh.topics));
  });

  const fresh: FreshTopics = {
    brokers,
    get kafka(): Kafka {
      if (!kafka) throw new Error('no Kafka client outside a test');
      return kafka;
    },
    get prefix(): string {
      if (!prefix) throw new Error('no topic prefix outside a test');
      return prefix;
    },
    get topics(): KafkaTopicNames {
      if (!topics) throw new Error('no topics outside a test');
      return topics;
    },
    withAdmin: async <T>(use: (admin: Admin) => Promise<T>): Promise<T> => {
      const admin = fresh.kafka.admin();
      await admin.connect();
      try {
        return await use(admin);
      } finally {
        await admin.disconnect();
      }
    },
    createTopics: async (existing: ITopicConfig[]): Promise<void> => {
      await fresh.withAdmin((admin) => createTopicsWithLeaders(admin, existing));
    },
    topicConfigs: async (topic: string): Promise<Map<string, string>> => {
      const described = await fresh.withAdmin((admin) =>
        admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false }),
      );
      return new Map(described.resources[0].configEntries.map((entry) => [entry.configName, entry.configValue]));
    },
  };
  return fresh;
}
