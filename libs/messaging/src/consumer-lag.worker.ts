import { ConfigResourceTypes, type Admin, type Kafka } from 'kafkajs';
import { describeError, retryWithBackoff } from '@wts/runtime';
import type { MessagingLogger } from './kafka-client.factory';

/** Warn once an unread message is older than this share of the topic's retention. */
export const LAG_WARN_FRACTION_OF_RETENTION = 0.5;

export interface PartitionRetentionLag {
  readonly partition: number;
  /** The group's committed offset (the earliest offset when it has none). */
  readonly committed: number;
  /** The oldest offset still on the broker, and the next one to be written. */
  readonly low: number;
  readonly high: number;
  /** Messages written and not yet committed. */
  readonly lag: number;
  /** Some unread message is older than the warning age. */
  readonly unreadOlderThanWarnAge: boolean;
  /** Messages expired before the group read them (committed below the oldest offset left). */
  readonly expiredUnread: number;
}

export interface RetentionLagReport {
  readonly topic: string;
  readonly groupId: string;
  /** The topic's retention (-1: forever), as the broker reports it. */
  readonly retentionMs: number;
  /** Unread messages older than this are a warning (a share of the retention). */
  readonly warnAfterMs: number | null;
  readonly measuredAt: string;
  readonly partitions: readonly PartitionRetentionLag[];
  readonly lag: number;
  /** Some unread message is past the warning age: it could expire unread if nothing changes. */
  readonly atRisk: boolean;
  /** Messages already expired unread (every one is still in the event store: replay them). */
  readonly expiredUnread: number;
}

/**
 * The consumer group's lag on `topic`, measured against the topic's retention: whether any unread
 * message is older than `warnFraction` of the retention (from the offset of the first message at
 * or after that age, per partition), and whether any expired before it was read. Five admin
 * requests, whatever the lag.
 */
export async function measureRetentionLag(
  admin: Admin,
  topic: string,
  groupId: string,
  options: { warnFraction?: number; now?: number } = {},
): Promise<RetentionLagReport> {
  const now = options.now ?? Date.now();
  const retentionMs = await topicRetentionMs(admin, topic);
  const warnAfterMs = retentionMs < 0 ? null : Math.floor(retentionMs * (options.warnFraction ?? LAG_WARN_FRACTION_OF_RETENTION));
  const [watermarks, committed, atWarnAge] = await Promise.all([
    retrying(() => admin.fetchTopicOffsets(topic)),
    retrying(() => admin.fetchOffsets({ groupId, topics: [topic] })),
    warnAfterMs === null ? Promise.resolve(undefined) : retrying(() => admin.fetchTopicOffsetsByTimestamp(topic, now - warnAfterMs)),
  ]);
  const committedBy = new Map((committed[0]?.partitions ?? []).map((entry) => [entry.partition, Number(entry.offset)]));
  const warnOffsetBy = new Map((atWarnAge ?? []).map((entry) => [entry.partition, Number(entry.offset)]));
  const partitions = watermarks
    .map(({ partition, low, high }): PartitionRetentionLag => {
      const lowOffset = Number(low);
      const highOffset = Number(high);
      const own = committedBy.get(partition) ?? -1;
      const read = own < 0 ? lowOffset : own;
      const warnOffset = warnOffsetBy.get(partition);
      const firstYoung = warnOffset === undefined || warnOffset < 0 ? highOffset : warnOffset;
      return {
        partition,
        committed: read,
        low: lowOffset,
        high: highOffset,
        lag: Math.max(0, highOffset - read),
        unreadOlderThanWarnAge: warnAfterMs !== null && read < firstYoung && read < highOffset,
        expiredUnread: own < 0 ? 0 : Math.max(0, lowOffset - own),
      };
    })
    .sort((a, b) => a.partition - b.partition);
  return {
    topic,
    groupId,
    retentionMs,
    warnAfterMs,
    measuredAt: new Date(now).toISOString(),
    partitions,
    lag: partitions.reduce((sum, entry) => sum + entry.lag, 0),
    atRisk: partitions.some((entry) => entry.unreadOlderThanWarnAge),
    expiredUnread: partitions.reduce((sum, entry) => sum + entry.expiredUnread, 0),
  };
}

/**
 * A group's coordinator or a partition's leader may be moving or still loading: kafkajs' admin does
 * not retry these itself. Retriable errors only, `attempts` in all, 100 ms more each wait up to 1 s.
 */
async function retrying<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  const result = await retryWithBackoff(work, {
    initialDelayMs: 100,
    maxDelayMs: 1000,
    growth: 'linear',
    retryIf: (error, attempt) => attempt < attempts && (error as { retriable?: unknown } | null)?.retriable === true,
  });
  if (result.kind === 'stopped') throw new Error('unreachable: nothing stops these retries');
  return result.value;
}

async function topicRetentionMs(admin: Admin, topic: string): Promise<number> {
  const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
  const value = described.resources[0]?.configEntries.find((entry) => entry.configName === 'retention.ms')?.configValue;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : -1;
}

/**
 * Measures the dispatcher's lag against the events topic's retention every `intervalMs`: a warning
 * while an unread message is past half the retention, an error once messages expired unread. The
 * latest report is kept (`latest()`) for a readiness detail or a metrics gauge to read.
 */
export class ConsumerLagMonitor {
  private timer: NodeJS.Timeout | undefined;
  private report: RetentionLagReport | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly logger: MessagingLogger,
    private readonly intervalMs = 60_000,
  ) {}

  /** The latest measurement; undefined before the first one. */
  latest(): RetentionLagReport | undefined {
    return this.report;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.measureNow(), this.intervalMs);
    this.timer.unref();
    void this.measureNow();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One measurement now (logged as described above); undefined when the broker could not be asked. */
  async measureNow(): Promise<RetentionLagReport | undefined> {
    const work = this.measure();
    this.running = work.then(() => undefined);
    return work;
  }

  private async measure(): Promise<RetentionLagReport | undefined> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      const report = await measureRetentionLag(admin, this.topic, this.groupId);
      this.report = report;
      const fields = {
        topic: report.topic,
        groupId: report.groupId,
        lag: report.lag,
        retentionMs: report.retentionMs,
        expiredUnread: report.expiredUnread,
      };
      if (report.expiredUnread > 0) {
        this.logger.error(
          fields,
          'messages expired from the topic before the dispatcher read them: replay them from the event store (npm run cli -- replay)',
        );
      } else if (report.atRisk) {
        this.logger.warn(
          { ...fields, warnAfterMs: report.warnAfterMs },
          "unread messages are older than half the topic's retention: the dispatcher is falling behind and they could expire unread",
        );
      }
      return report;
    } catch (error) {
      this.logger.warn({ topic: this.topic, err: describeError(error) }, 'could not measure the consumer lag against retention');
      return undefined;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}
