import { ConfigResourceTypes, type Admin, type Kafka } from 'kafkajs';
import {
  KAFKA_RETENTION_CHECK_INTERVAL_MS,
  describeWindow,
  plannedRunsRetention,
  windowExceedsRetention,
  type KafkaRetentionWindow,
  type RunsTopicRetention,
} from '@wts/domain';
import { TOPIC_RETENTION_MS, type KafkaTopicNames } from './kafka-topics.contract';

export type { KafkaRetentionWindow, KafkaCopiesExpireBy } from '@wts/domain';
export { kafkaCopiesExpireBy, kafkaCopiesExpiry, kafkaWindowMs } from '@wts/domain';

const RETENTION_MS = 'retention.ms';
const SEGMENT_MS = 'segment.ms';

/**
 * routines.runs.v1 keeps copies of payloads longer than PAYLOAD_RETENTION_SECONDS: the service
 * refuses to start (never retried: an operator must change the topic or the retention).
 */
export class KafkaRetentionRefusedError extends Error {
  override readonly name = 'KafkaRetentionRefusedError';
}

/** What the service sets on a routines.runs.v1 it creates, for this payload retention; refused when nothing fits. */
export function runsTopicRetention(topic: string, payloadRetentionSeconds: number): RunsTopicRetention {
  const contract = TOPIC_RETENTION_MS.routineRuns ?? RUNS_FALLBACK_RETENTION_MS;
  const planned = plannedRunsRetention(payloadRetentionSeconds, contract);
  if (planned) return planned;
  throw new KafkaRetentionRefusedError(
    `PAYLOAD_RETENTION_SECONDS=${payloadRetentionSeconds} is too short for Kafka: ${topic} carries payloads, and Kafka ` +
      `deletes them only after retention.ms + segment.ms + its retention check (${KAFKA_RETENTION_CHECK_INTERVAL_MS} ms). ` +
      `Set PAYLOAD_RETENTION_SECONDS to at least ${Math.ceil(KAFKA_RETENTION_CHECK_INTERVAL_MS / 1000) + 120}, or run without KAFKA_BROKERS.`,
  );
}

const RUNS_FALLBACK_RETENTION_MS = 7 * 86_400_000;

/** The topic's retention.ms and segment.ms as the broker applies them (its own, else the broker's default). */
export async function describeRunsWindow(admin: Admin, topic: string): Promise<KafkaRetentionWindow> {
  const described = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [RETENTION_MS, SEGMENT_MS] }],
    includeSynonyms: false,
  });
  const entries = described.resources[0]?.configEntries ?? [];
  const figure = (name: string): number => {
    const value = Number(entries.find((entry) => entry.configName === name)?.configValue);
    if (!Number.isFinite(value)) throw new Error(`the broker did not report ${name} of ${topic}`);
    return value;
  };
  return { topic, retentionMs: figure(RETENTION_MS), segmentMs: figure(SEGMENT_MS), checkIntervalMs: KAFKA_RETENTION_CHECK_INTERVAL_MS };
}

/**
 * The window of routines.runs.v1, refused (KafkaRetentionRefusedError, naming both figures and the
 * fix) when its copies could outlive PAYLOAD_RETENTION_SECONDS. An operator's longer retention is
 * never lowered by the service: the message says how to lower it.
 */
export async function checkRunsWindow(admin: Admin, topic: string, payloadRetentionSeconds: number): Promise<KafkaRetentionWindow> {
  const window = await describeRunsWindow(admin, topic);
  if (!windowExceedsRetention(window, payloadRetentionSeconds)) return window;
  const fix = runsTopicRetention(topic, payloadRetentionSeconds);
  throw new KafkaRetentionRefusedError(
    `${topic} keeps run messages, which carry payloads, longer than PAYLOAD_RETENTION_SECONDS allows: ` +
      `${describeWindow(window)} > ${payloadRetentionSeconds} s (${(payloadRetentionSeconds / 86_400).toFixed(2)} days). ` +
      `Lower the topic's retention: kafka-configs.sh --bootstrap-server <host:port> --alter --entity-type topics ` +
      `--entity-name ${topic} --add-config ${RETENTION_MS}=${fix.retentionMs},${SEGMENT_MS}=${fix.segmentMs} ` +
      `(or raise PAYLOAD_RETENTION_SECONDS), then start again.`,
  );
}

/**
 * What the ingress needs to know at start (it does not own routines.runs.v1): the topic's window,
 * or undefined while the topic does not exist yet (the dispatcher creates it within the payload
 * retention). Needs DESCRIBE_CONFIGS on the topic (kafka-access.plan.ts grants it).
 */
export async function readRunsWindow(kafka: Kafka, topics: KafkaTopicNames): Promise<KafkaRetentionWindow | undefined> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    if (!existing.includes(topics.routineRuns)) return undefined;
    return await describeRunsWindow(admin, topics.routineRuns);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
