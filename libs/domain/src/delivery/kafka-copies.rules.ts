/**
 * How long a copy of a payload can stay on `routines.runs.v1` (each RunCreated carries its run's
 * framed message, so its payload). Kafka deletes whole segments only, once the newest record of a
 * segment is older than `retention.ms`, and looks every `log.retention.check.interval.ms`: a record
 * can live up to retention.ms + segment.ms + the check interval after it was written. Pure: the
 * messaging library reads the figures from the broker, the services compare retentions with them.
 */

/** Kafka's `log.retention.check.interval.ms` default (5 minutes): the figure the window assumes. */
export const KAFKA_RETENTION_CHECK_INTERVAL_MS = 300_000;

/** The longest `segment.ms` the service sets on routines.runs.v1 (1 day). */
export const RUNS_MAX_SEGMENT_MS = 86_400_000;

/** The shortest `segment.ms` (and `retention.ms`) the service sets: a segment a record would not be worth. */
export const RUNS_MIN_SEGMENT_MS = 60_000;

const DAY_MS = 86_400_000;

/** The settings of the topic that carries payloads, as the broker reports them (topic or broker default). */
export interface KafkaRetentionWindow {
  readonly topic: string;
  /** -1: forever. */
  readonly retentionMs: number;
  readonly segmentMs: number;
  readonly checkIntervalMs: number;
}

/** The topic's `retention.ms` and `segment.ms` the service sets. */
export interface RunsTopicRetention {
  readonly retentionMs: number;
  readonly segmentMs: number;
}

/** By when the last copy on the topic is gone, from its last write: `lastWrittenAt` + the window; null without Kafka. */
export type KafkaCopiesExpireBy = (lastWrittenAt: Date) => Date | null;

/** The longest a copy can stay: retention.ms + segment.ms + the check interval (Infinity when retention is forever). */
export function kafkaWindowMs(window: KafkaRetentionWindow): number {
  if (window.retentionMs < 0 || window.segmentMs < 0) return Number.POSITIVE_INFINITY;
  return window.retentionMs + window.segmentMs + window.checkIntervalMs;
}

/**
 * `retention.ms` and `segment.ms` for routines.runs.v1 whose window fits in the shortest payload
 * retention (PAYLOAD_RETENTION_SECONDS): the contract's retention with segment.ms = min(1 day,
 * retention / 4) when that fits, else the longest retention that does with segment.ms = min(1 day,
 * retention / 4). Undefined when none does (a payload retention barely above the check interval).
 */
export function plannedRunsRetention(
  payloadRetentionSeconds: number,
  contractRetentionMs: number,
  checkIntervalMs = KAFKA_RETENTION_CHECK_INTERVAL_MS,
): RunsTopicRetention | undefined {
  const budget = payloadRetentionSeconds * 1000 - checkIntervalMs;
  const segmentFor = (retentionMs: number): number =>
    Math.max(RUNS_MIN_SEGMENT_MS, Math.min(RUNS_MAX_SEGMENT_MS, Math.floor(retentionMs / 4)));
  const contractSegment = segmentFor(contractRetentionMs);
  if (contractRetentionMs > 0 && contractRetentionMs + contractSegment <= budget) {
    return { retentionMs: contractRetentionMs, segmentMs: contractSegment };
  }
  // A whole day of segment once retention reaches 4 days (retention + 1 day = budget), else a
  // quarter of it (retention + retention / 4 = budget), never below the shortest segment.
  let retentionMs = budget - RUNS_MAX_SEGMENT_MS >= 4 * RUNS_MAX_SEGMENT_MS ? budget - RUNS_MAX_SEGMENT_MS : Math.floor((budget * 4) / 5);
  if (Math.floor(retentionMs / 4) < RUNS_MIN_SEGMENT_MS) retentionMs = budget - RUNS_MIN_SEGMENT_MS;
  const segmentMs = segmentFor(retentionMs);
  if (retentionMs < RUNS_MIN_SEGMENT_MS || retentionMs + segmentMs > budget) return undefined;
  return { retentionMs, segmentMs };
}

/** Whether the topic keeps copies longer than the payload retention allows. */
export function windowExceedsRetention(window: KafkaRetentionWindow, payloadRetentionSeconds: number): boolean {
  return kafkaWindowMs(window) > payloadRetentionSeconds * 1000;
}

/**
 * When the last copy of a message written at `lastWrittenAt` is gone from the topic: lastWrittenAt +
 * retention.ms + segment.ms + the check interval. Null without Kafka (no window), and when the
 * topic keeps messages forever (never).
 */
export function kafkaCopiesExpireBy(window: KafkaRetentionWindow | null, lastWrittenAt: Date): Date | null {
  if (window === null) return null;
  const windowMs = kafkaWindowMs(window);
  return Number.isFinite(windowMs) ? new Date(lastWrittenAt.getTime() + windowMs) : null;
}

/** kafkaCopiesExpireBy bound to the window as the service knows it (read again at each call). */
export function kafkaCopiesExpiry(window: () => KafkaRetentionWindow | null): KafkaCopiesExpireBy {
  return (lastWrittenAt) => kafkaCopiesExpireBy(window(), lastWrittenAt);
}

/**
 * Why a webhook's `payload_retention_days` is refused while copies stay on the topic longer than
 * that (they would outlive the payload); undefined when it is allowed (or there is no Kafka).
 */
export function retentionBelowKafkaWindow(payloadRetentionDays: number | null, window: KafkaRetentionWindow | null): string | undefined {
  if (payloadRetentionDays === null || window === null) return undefined;
  const windowMs = kafkaWindowMs(window);
  if (payloadRetentionDays * DAY_MS >= windowMs) return undefined;
  const shortest = Number.isFinite(windowMs)
    ? `at least ${Math.ceil(windowMs / DAY_MS)} days`
    : 'not possible while it keeps messages forever';
  return (
    `payload_retention_days ${payloadRetentionDays} is shorter than ${window.topic} keeps copies of payloads ` +
    `(${describeWindow(window)}): ${shortest}, or lower the topic's retention.ms / segment.ms`
  );
}

/** e.g. `retention.ms 604800000 + segment.ms 86400000 + retention check 300000 ms = 8.00 days`. */
export function describeWindow(window: KafkaRetentionWindow): string {
  const windowMs = kafkaWindowMs(window);
  const total = Number.isFinite(windowMs) ? `${(windowMs / DAY_MS).toFixed(2)} days` : 'forever';
  return `retention.ms ${window.retentionMs} + segment.ms ${window.segmentMs} + retention check ${window.checkIntervalMs} ms = ${total}`;
}
