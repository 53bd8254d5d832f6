import {
  KAFKA_RETENTION_CHECK_INTERVAL_MS,
  RUNS_MAX_SEGMENT_MS,
  RUNS_MIN_SEGMENT_MS,
  describeWindow,
  kafkaCopiesExpireBy,
  kafkaCopiesExpiry,
  kafkaWindowMs,
  plannedRunsRetention,
  retentionBelowKafkaWindow,
  windowExceedsRetention,
  type KafkaRetentionWindow,
} from './kafka-copies.rules';

const DAY_MS = 86_400_000;
const DAY_S = 86_400;
const SEVEN_DAYS_MS = 7 * DAY_MS;
const CHECK = KAFKA_RETENTION_CHECK_INTERVAL_MS;

const windowOf = (retentionMs: number, segmentMs: number): KafkaRetentionWindow => ({
  topic: 'routines.runs.v1',
  retentionMs,
  segmentMs,
  checkIntervalMs: CHECK,
});

describe('the Kafka window of routines.runs.v1', () => {
  it('is retention.ms + segment.ms + the retention check, and forever when either is -1', () => {
    expect(kafkaWindowMs(windowOf(SEVEN_DAYS_MS, DAY_MS))).toBe(8 * DAY_MS + 300_000);
    expect(kafkaWindowMs(windowOf(-1, DAY_MS))).toBe(Number.POSITIVE_INFINITY);
    expect(windowExceedsRetention(windowOf(-1, DAY_MS), 3650 * DAY_S)).toBe(true);
    expect(windowExceedsRetention(windowOf(SEVEN_DAYS_MS, DAY_MS), 30 * DAY_S)).toBe(false);
    // Exactly at the retention fits; one millisecond above does not.
    expect(windowExceedsRetention(windowOf(DAY_MS - CHECK - 1000, 1000), DAY_S)).toBe(false);
    expect(windowExceedsRetention(windowOf(DAY_MS - CHECK - 999, 1000), DAY_S)).toBe(true);
  });

  it("keeps the contract's retention (7 days, segment 1 day) when it fits: the default 30 days", () => {
    expect(plannedRunsRetention(30 * DAY_S, SEVEN_DAYS_MS)).toEqual({ retentionMs: SEVEN_DAYS_MS, segmentMs: DAY_MS });
    // 8 days + the check interval exactly.
    expect(plannedRunsRetention((8 * DAY_MS + CHECK) / 1000, SEVEN_DAYS_MS)).toEqual({ retentionMs: SEVEN_DAYS_MS, segmentMs: DAY_MS });
  });

  it('shortens retention when the contract does not fit: a whole day of segment from 5 days up, a quarter below', () => {
    expect(plannedRunsRetention(6 * DAY_S, SEVEN_DAYS_MS)).toEqual({ retentionMs: 5 * DAY_MS - CHECK, segmentMs: DAY_MS });
    const twoHours = plannedRunsRetention(7200, SEVEN_DAYS_MS);
    expect(twoHours).toEqual({ retentionMs: 5_520_000, segmentMs: 1_380_000 });
    const oneDay = plannedRunsRetention(DAY_S, SEVEN_DAYS_MS);
    expect(oneDay?.segmentMs).toBe(Math.floor((oneDay?.retentionMs ?? 0) / 4));
  });

  it('every planned window fits the payload retention, with segment.ms = min(1 day, retention / 4) within bounds', () => {
    for (const seconds of [420, 421, 600, 3600, 7200, DAY_S, 2 * DAY_S, 5 * DAY_S + 300, 8 * DAY_S, 30 * DAY_S, 3650 * DAY_S]) {
      const planned = plannedRunsRetention(seconds, SEVEN_DAYS_MS);
      expect(planned).toBeDefined();
      if (!planned) continue;
      const window = windowOf(planned.retentionMs, planned.segmentMs);
      expect(kafkaWindowMs(window)).toBeLessThanOrEqual(seconds * 1000);
      expect(planned.segmentMs).toBeLessThanOrEqual(RUNS_MAX_SEGMENT_MS);
      expect(planned.segmentMs).toBeGreaterThanOrEqual(RUNS_MIN_SEGMENT_MS);
      expect(planned.retentionMs).toBeGreaterThanOrEqual(RUNS_MIN_SEGMENT_MS);
    }
  });

  it('has no window for a payload retention barely above the check interval (60 s, 419 s)', () => {
    expect(plannedRunsRetention(60, SEVEN_DAYS_MS)).toBeUndefined();
    expect(plannedRunsRetention(419, SEVEN_DAYS_MS)).toBeUndefined();
    expect(plannedRunsRetention(420, SEVEN_DAYS_MS)).toEqual({ retentionMs: RUNS_MIN_SEGMENT_MS, segmentMs: RUNS_MIN_SEGMENT_MS });
  });

  it('describes the window with its figures', () => {
    expect(describeWindow(windowOf(SEVEN_DAYS_MS, DAY_MS))).toBe(
      'retention.ms 604800000 + segment.ms 86400000 + retention check 300000 ms = 8.00 days',
    );
    expect(describeWindow(windowOf(-1, DAY_MS))).toContain('= forever');
  });
});

describe('kafkaCopiesExpireBy', () => {
  const written = new Date('2025-03-01T12:00:00.000Z');

  it('is the last write + retention.ms + segment.ms + the check interval', () => {
    expect(kafkaCopiesExpireBy(windowOf(SEVEN_DAYS_MS, DAY_MS), written)?.toISOString()).toBe('2025-03-09T12:05:00.000Z');
  });

  it('is null without Kafka, and null (never) when the topic keeps messages forever', () => {
    expect(kafkaCopiesExpireBy(null, written)).toBeNull();
    expect(kafkaCopiesExpireBy(windowOf(-1, DAY_MS), written)).toBeNull();
  });

  it('bound to a window source, reads the window at each call', () => {
    let window: KafkaRetentionWindow | null = null;
    const expireBy = kafkaCopiesExpiry(() => window);
    expect(expireBy(written)).toBeNull();
    window = windowOf(DAY_MS, 6 * 3_600_000);
    expect(expireBy(written)?.toISOString()).toBe('2025-03-02T18:05:00.000Z');
  });
});

describe('a webhook retention below the Kafka window', () => {
  const window = windowOf(SEVEN_DAYS_MS, DAY_MS);

  it('is refused, naming the topic, its figures and the shortest retention allowed', () => {
    const problem = retentionBelowKafkaWindow(8, window);
    expect(problem).toContain('payload_retention_days 8 is shorter than routines.runs.v1 keeps copies of payloads');
    expect(problem).toContain('retention.ms 604800000 + segment.ms 86400000 + retention check 300000 ms');
    expect(problem).toContain('at least 9 days');
    expect(retentionBelowKafkaWindow(1, windowOf(-1, DAY_MS))).toContain('not possible while it keeps messages forever');
  });

  it('is allowed at or above the window, for the default (null), and without Kafka', () => {
    expect(retentionBelowKafkaWindow(9, window)).toBeUndefined();
    expect(retentionBelowKafkaWindow(null, window)).toBeUndefined();
    expect(retentionBelowKafkaWindow(1, null)).toBeUndefined();
    expect(retentionBelowKafkaWindow(1, windowOf(DAY_MS - CHECK - RUNS_MIN_SEGMENT_MS, RUNS_MIN_SEGMENT_MS))).toBeUndefined();
  });
});
