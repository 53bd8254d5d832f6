import { ConfigResourceTypes, ConfigSource, type Admin, type Kafka } from 'kafkajs';
import { describeError } from './async.util';
import { silentMessagingLogger, type MessagingLogger } from './kafka-client.factory';
import { DATA_TOPIC_ROLES, DEFAULT_PARTITIONS, TOPIC_MAX_MESSAGE_BYTES, type KafkaTopicNames, type TopicRole } from './kafka-topics.contract';

export type TopicPartitions = { readonly [R in TopicRole]?: number };

export interface EnsureTopicsOptions {
  /** `max.message.bytes` of the topics that carry events; TOPIC_MAX_MESSAGE_BYTES unless a test lowers it. */
  readonly maxMessageBytes?: number;
  readonly logger?: MessagingLogger;
}

const MAX_MESSAGE_BYTES = 'max.message.bytes';

/**
 * Creates the missing topics (idempotent: a replica that loses the creation race to another one is
 * fine), the event topics with `max.message.bytes` = TOPIC_MAX_MESSAGE_BYTES. An existing event
 * topic whose `max.message.bytes` is lower is raised (its other topic-level settings are kept);
 * if that is refused (no ALTER_CONFIGS permission), it is logged and left to the operator — the
 * relays still work, but a message above the topic's limit waits until the limit is raised.
 * Partitions default to DEFAULT_PARTITIONS.
 */
export async function ensureTopics(kafka: Kafka, topics: KafkaTopicNames, partitions: TopicPartitions = {}, options: EnsureTopicsOptions = {}): Promise<void> {
  const maxMessageBytes = options.maxMessageBytes ?? TOPIC_MAX_MESSAGE_BYTES;
  const logger = options.logger ?? silentMessagingLogger;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    for (const role of Object.keys(topics) as TopicRole[]) {
      const topic = topics[role];
      const carriesEvents = DATA_TOPIC_ROLES.includes(role);
      if (existing.has(topic)) {
        if (carriesEvents) await raiseMaxMessageBytes(admin, topic, maxMessageBytes, logger);
        continue;
      }
      try {
        await admin.createTopics({
          topics: [
            {
              topic,
              numPartitions: partitions[role] ?? DEFAULT_PARTITIONS[role],
              ...(carriesEvents ? { configEntries: [{ name: MAX_MESSAGE_BYTES, value: String(maxMessageBytes) }] } : {}),
            },
          ],
          waitForLeaders: true,
        });
      } catch (error) {
        if (!isTopicAlreadyExists(error)) throw error;
        if (carriesEvents) await raiseMaxMessageBytes(admin, topic, maxMessageBytes, logger);
      }
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Raises the topic's `max.message.bytes` to `wanted` when it is lower; never lowers it. Kafka's
 * AlterConfigs (kafkajs has no incremental variant) replaces every topic-level setting, so the
 * topic's current overrides are sent along unchanged.
 */
async function raiseMaxMessageBytes(admin: Admin, topic: string, wanted: number, logger: MessagingLogger): Promise<void> {
  try {
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
    const entries = described.resources[0]?.configEntries ?? [];
    const current = Number(entries.find((entry) => entry.configName === MAX_MESSAGE_BYTES)?.configValue);
    if (Number.isFinite(current) && current >= wanted) return;
    const overrides = entries.filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG && entry.configName !== MAX_MESSAGE_BYTES);
    if (overrides.some((entry) => entry.isSensitive || entry.configValue === null)) {
      logger.warn({ topic, current, wanted }, `topic ${MAX_MESSAGE_BYTES} is below what the relays need and holds a sensitive override that cannot be copied: raise it by hand`);
      return;
    }
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [...overrides.map((entry) => ({ name: entry.configName, value: entry.configValue })), { name: MAX_MESSAGE_BYTES, value: String(wanted) }],
        },
      ],
    });
    logger.info({ topic, from: Number.isFinite(current) ? current : null, to: wanted }, `raised the topic's ${MAX_MESSAGE_BYTES}`);
  } catch (error) {
    logger.warn(
      { topic, wanted, err: describeError(error) },
      `cannot check or raise the topic's ${MAX_MESSAGE_BYTES}; messages above its limit will wait until an operator raises it`,
    );
  }
}

function isTopicAlreadyExists(error: unknown): boolean {
  const nested = (error as { errors?: unknown[] } | null)?.errors;
  if (Array.isArray(nested) && nested.length > 0) return nested.every(isTopicAlreadyExists);
  return (error as { type?: unknown } | null)?.type === 'TOPIC_ALREADY_EXISTS';
}
