import { ConfigResourceTypes, ConfigSource, type Admin, type ITopicConfig, type Kafka } from 'kafkajs';
import { describeError, retryWithBackoff } from '@wts/runtime';
import { silentMessagingLogger, type MessagingLogger } from './kafka-client.factory';
import { checkRunsWindow, runsTopicRetention, type KafkaRetentionWindow } from './kafka-retention.preflight';
import {
  DATA_TOPIC_ROLES,
  DEFAULT_PARTITIONS,
  TOPIC_MAX_MESSAGE_BYTES,
  TOPIC_RETENTION_MS,
  type KafkaTopicNames,
  type TopicRole,
} from './kafka-topics.contract';

export type TopicPartitions = { readonly [R in TopicRole]?: number };

export interface EnsureTopicsOptions {
  /** `max.message.bytes` of the topics that carry events; TOPIC_MAX_MESSAGE_BYTES unless a test lowers it. */
  readonly maxMessageBytes?: number;
  readonly logger?: MessagingLogger;
  /**
   * The topics this part uses, the only ones it creates or aligns (all of them unless given): with
   * ACLs on the brokers, a service may see and create its own topics only (kafka-access.plan.ts).
   */
  readonly roles?: readonly TopicRole[];
  /**
   * PAYLOAD_RETENTION_SECONDS, the shortest payload retention at start: routines.runs.v1 (which
   * carries payloads) is created with retention.ms + segment.ms + the retention check within it,
   * and an existing one beyond it is refused (KafkaRetentionRefusedError). Unchecked when absent.
   */
  readonly payloadRetentionSeconds?: number;
}

/** What ensureTopics found: the window of routines.runs.v1 when it created or checked it. */
export interface EnsuredTopics {
  readonly runsWindow?: KafkaRetentionWindow;
}

const MAX_MESSAGE_BYTES = 'max.message.bytes';
const RETENTION_MS = 'retention.ms';
const SEGMENT_MS = 'segment.ms';

/**
 * Creates the missing topics (idempotent: a replica that loses the creation race to another one is
 * fine), the event topics with `max.message.bytes` = TOPIC_MAX_MESSAGE_BYTES and `retention.ms` =
 * TOPIC_RETENTION_MS (the dead-letter topic: forever). An existing event
 * topic whose `max.message.bytes` is lower is raised (its other topic-level settings are kept);
 * if that is refused (no ALTER_CONFIGS permission), it is logged and left to the operator — the
 * relays still work, but a message above the topic's limit waits until the limit is raised.
 * Partitions default to DEFAULT_PARTITIONS. With `payloadRetentionSeconds`, routines.runs.v1 gets
 * the retention.ms and segment.ms of runsTopicRetention, and is then checked (checkRunsWindow).
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: KafkaTopicNames,
  partitions: TopicPartitions = {},
  options: EnsureTopicsOptions = {},
): Promise<EnsuredTopics> {
  const maxMessageBytes = options.maxMessageBytes ?? TOPIC_MAX_MESSAGE_BYTES;
  const logger = options.logger ?? silentMessagingLogger;
  const payloadRetention = options.payloadRetentionSeconds;
  const roles = options.roles ?? (Object.keys(topics) as TopicRole[]);
  // Refused before anything is created when no window can fit this payload retention.
  const runs =
    payloadRetention !== undefined && roles.includes('routineRuns') ? runsTopicRetention(topics.routineRuns, payloadRetention) : undefined;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    for (const role of roles) {
      const topic = topics[role];
      const carriesEvents = DATA_TOPIC_ROLES.includes(role);
      const retentionMs = role === 'routineRuns' && runs ? runs.retentionMs : TOPIC_RETENTION_MS[role];
      const segmentMs = role === 'routineRuns' ? runs?.segmentMs : undefined;
      if (existing.has(topic)) {
        if (carriesEvents) await alignTopicConfig(admin, topic, maxMessageBytes, retentionMs, logger);
        continue;
      }
      try {
        await createTopicsWithLeaders(admin, [
          {
            topic,
            numPartitions: partitions[role] ?? DEFAULT_PARTITIONS[role],
            ...(carriesEvents
              ? {
                  configEntries: [
                    { name: MAX_MESSAGE_BYTES, value: String(maxMessageBytes) },
                    ...(retentionMs === undefined ? [] : [{ name: RETENTION_MS, value: String(retentionMs) }]),
                    ...(segmentMs === undefined ? [] : [{ name: SEGMENT_MS, value: String(segmentMs) }]),
                  ],
                }
              : {}),
          },
        ]);
      } catch (error) {
        if (!isTopicAlreadyExists(error)) throw error;
        if (carriesEvents) await alignTopicConfig(admin, topic, maxMessageBytes, retentionMs, logger);
      }
    }
    // Created here or by anyone else, aligned or not: what counts is what the broker applies now.
    return runs && payloadRetention !== undefined ? { runsWindow: await checkRunsWindow(admin, topics.routineRuns, payloadRetention) } : {};
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Raises the topic's `max.message.bytes` to `wanted` when it is lower (never lowers it), and sets
 * `retention.ms` when the topic has none of its own (it inherits the broker's) — or, for the
 * dead-letter topic (`retentionMs` -1), whenever it is not "forever". Kafka's AlterConfigs (kafkajs
 * has no incremental variant) replaces every topic-level setting, so the topic's current overrides
 * are sent along unchanged.
 */
async function alignTopicConfig(
  admin: Admin,
  topic: string,
  wanted: number,
  retentionMs: number | undefined,
  logger: MessagingLogger,
): Promise<void> {
  try {
    const described = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
      includeSynonyms: false,
    });
    const entries = described.resources[0]?.configEntries ?? [];
    const current = Number(entries.find((entry) => entry.configName === MAX_MESSAGE_BYTES)?.configValue);
    const retention = entries.find((entry) => entry.configName === RETENTION_MS);
    const ownRetention = retention?.configSource === ConfigSource.TOPIC_CONFIG;
    const retentionWanted =
      retentionMs !== undefined && (retentionMs === -1 ? retention?.configValue !== '-1' : !ownRetention) ? String(retentionMs) : undefined;
    const raise = !(Number.isFinite(current) && current >= wanted);
    if (!raise && retentionWanted === undefined) return;
    const changed = new Set([...(raise ? [MAX_MESSAGE_BYTES] : []), ...(retentionWanted === undefined ? [] : [RETENTION_MS])]);
    const overrides = entries.filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG && !changed.has(entry.configName));
    if (overrides.some((entry) => entry.isSensitive || entry.configValue === null)) {
      logger.warn(
        { topic, current, wanted, retentionWanted },
        'topic settings differ from what the service needs and a sensitive override cannot be copied: set them by hand',
      );
      return;
    }
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [
            ...overrides.map((entry) => ({ name: entry.configName, value: entry.configValue })),
            ...(raise ? [{ name: MAX_MESSAGE_BYTES, value: String(wanted) }] : []),
            ...(retentionWanted === undefined ? [] : [{ name: RETENTION_MS, value: retentionWanted }]),
          ],
        },
      ],
    });
    logger.info(
      {
        topic,
        maxMessageBytes: raise ? { from: Number.isFinite(current) ? current : null, to: wanted } : undefined,
        retentionMs: retentionWanted,
      },
      "aligned the topic's settings",
    );
  } catch (error) {
    logger.warn(
      { topic, wanted, retentionMs, err: describeError(error) },
      `cannot check or set the topic's ${MAX_MESSAGE_BYTES} / ${RETENTION_MS}; messages above its limit will wait until an operator raises it`,
    );
  }
}

/**
 * admin.createTopics with every partition's leader awaited, also where kafkajs' own wait gives up
 * early: the topics were created, and a broker that had not heard of them yet answered first.
 */
export async function createTopicsWithLeaders(admin: Admin, topics: ITopicConfig[]): Promise<void> {
  try {
    await admin.createTopics({ topics, waitForLeaders: true });
  } catch (error) {
    if (!isUnknownTopicPartition(error)) throw error;
    for (const { topic } of topics) await leadersElected(admin, topic, error);
  }
}

/** How long a created topic may take to show a leader for every partition. */
const LEADERS_TIMEOUT_MS = 30_000;

/**
 * Waits until every partition of a topic just created has a leader. kafkajs' `waitForLeaders`
 * gives up on the first metadata answer "this server does not host this topic-partition" (a
 * busy broker answers it for a moment after the create); this asks again with backoff, and
 * rethrows `cause` if the leaders are still missing after LEADERS_TIMEOUT_MS.
 */
async function leadersElected(admin: Admin, topic: string, cause: unknown): Promise<void> {
  const deadline = Date.now() + LEADERS_TIMEOUT_MS;
  const outcome = await retryWithBackoff(
    async () => {
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      const partitions = metadata?.partitions ?? [];
      if (partitions.length === 0 || partitions.some((partition) => partition.leader < 0)) throw new Error(`${topic} has no leader yet`);
    },
    { initialDelayMs: 50, maxDelayMs: 1_000, proceed: () => Date.now() < deadline },
  );
  if (outcome.kind === 'stopped') throw cause;
}

function isUnknownTopicPartition(error: unknown): boolean {
  return (error as { type?: unknown } | null)?.type === 'UNKNOWN_TOPIC_OR_PARTITION';
}

function isTopicAlreadyExists(error: unknown): boolean {
  const nested = (error as { errors?: unknown[] } | null)?.errors;
  if (Array.isArray(nested) && nested.length > 0) return nested.every(isTopicAlreadyExists);
  return (error as { type?: unknown } | null)?.type === 'TOPIC_ALREADY_EXISTS';
}
