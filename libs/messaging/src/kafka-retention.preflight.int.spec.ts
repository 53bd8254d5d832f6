import { ConfigResourceTypes } from 'kafkajs';
import { kafkaWindowMs } from '@wts/domain';

import { KafkaRetentionRefusedError, readRunsWindow } from './kafka-retention.preflight';
import { KafkaRunsWindowSource } from './kafka-runs-window.reader';
import { ensureTopics } from './kafka-topics.admin';
import { useFreshTopics } from '../../../test/support/kafka-topics.kit';
import { TOPIC_RETENTION_MS } from './kafka-topics.contract';

const DAY_S = 86_400;
const TWO_HOURS_S = 7200;

/** routines.runs.v1 carries payloads: ensureTopics keeps its window within PAYLOAD_RETENTION_SECONDS (real broker). */
describe('the runs topic within the payload retention (real broker)', () => {
  const fresh = useFreshTopics('retention');
  const { withAdmin, createTopics, topicConfigs } = fresh;

  const runsRoles = { roles: ['routineRuns', 'relayLeadership'] as const };

  it('creates a fresh runs topic with retention.ms + segment.ms + the check interval within the payload retention', async () => {
    const ensured = await ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: TWO_HOURS_S });
    const configs = await topicConfigs(fresh.topics.routineRuns);
    const retentionMs = Number(configs.get('retention.ms'));
    const segmentMs = Number(configs.get('segment.ms'));
    expect({ retentionMs, segmentMs }).toEqual({ retentionMs: 5_520_000, segmentMs: 1_380_000 });
    expect(retentionMs + segmentMs + 300_000).toBeLessThanOrEqual(TWO_HOURS_S * 1000);
    expect(ensured.runsWindow).toEqual({ topic: fresh.topics.routineRuns, retentionMs, segmentMs, checkIntervalMs: 300_000 });
    // Idempotent: the second start checks the same topic and passes.
    await expect(ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: TWO_HOURS_S })).resolves.toEqual(
      ensured,
    );
  });

  it("keeps the contract's 7 days (segment 1 day) when it fits the default 30 days", async () => {
    const ensured = await ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: 30 * DAY_S });
    const configs = await topicConfigs(fresh.topics.routineRuns);
    expect(configs.get('retention.ms')).toBe(String(TOPIC_RETENTION_MS.routineRuns));
    expect(configs.get('segment.ms')).toBe(String(DAY_S * 1000));
    expect(kafkaWindowMs(ensured.runsWindow ?? { topic: '', retentionMs: -1, segmentMs: 0, checkIntervalMs: 0 })).toBe(
      8 * DAY_S * 1000 + 300_000,
    );
  });

  it("refuses an existing runs topic that keeps payloads longer, naming both figures and the fix, and never lowers the operator's retention", async () => {
    // An operator's 3 days, with the broker's default segment.ms (7 days).
    await createTopics([
      { topic: fresh.topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '259200000' }] },
    ]);
    const refusal = ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: DAY_S });
    await expect(refusal).rejects.toBeInstanceOf(KafkaRetentionRefusedError);
    const message = await refusal.then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toContain(
      `${fresh.topics.routineRuns} keeps run messages, which carry payloads, longer than PAYLOAD_RETENTION_SECONDS allows`,
    );
    expect(message).toContain('retention.ms 259200000 + segment.ms 604800000 + retention check 300000 ms = 10.00 days > 86400 s');
    expect(message).toContain(
      `kafka-configs.sh --bootstrap-server <host:port> --alter --entity-type topics --entity-name ${fresh.topics.routineRuns} --add-config retention.ms=`,
    );
    const configs = await topicConfigs(fresh.topics.routineRuns);
    expect(configs.get('retention.ms')).toBe('259200000');
    expect(configs.get('segment.ms')).toBe('604800000');
  });

  it('passes an existing runs topic within the payload retention, whatever its settings (the fix the refusal names works)', async () => {
    await createTopics([
      { topic: fresh.topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '259200000' }] },
    ]);
    const message = await ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: DAY_S }).then(
      () => '',
      (error: Error) => error.message,
    );
    const fix = /retention\.ms=(\d+),segment\.ms=(\d+)/.exec(message);
    expect(fix).not.toBeNull();
    await withAdmin((admin) =>
      admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: fresh.topics.routineRuns,
            configEntries: [
              { name: 'retention.ms', value: fix?.[1] ?? '' },
              { name: 'segment.ms', value: fix?.[2] ?? '' },
            ],
          },
        ],
      }),
    );
    const ensured = await ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: DAY_S });
    expect(ensured.runsWindow).toMatchObject({ retentionMs: Number(fix?.[1]), segmentMs: Number(fix?.[2]) });
    expect(kafkaWindowMs(ensured.runsWindow ?? { topic: '', retentionMs: -1, segmentMs: 0, checkIntervalMs: 0 })).toBeLessThanOrEqual(
      DAY_S * 1000,
    );
  });

  it('refuses a payload retention no window fits before creating anything', async () => {
    await expect(ensureTopics(fresh.kafka, fresh.topics, {}, { ...runsRoles, payloadRetentionSeconds: 60 })).rejects.toThrow(
      /PAYLOAD_RETENTION_SECONDS=60 is too short for Kafka/,
    );
    expect(await withAdmin((admin) => admin.listTopics())).not.toContain(fresh.topics.routineRuns);
  });

  it('leaves the runs topic unchecked for a part that does not use it (the ingress relay, the dispatcher consumer)', async () => {
    await createTopics([{ topic: fresh.topics.routineRuns, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '-1' }] }]);
    await expect(
      ensureTopics(fresh.kafka, fresh.topics, {}, { roles: ['webhookEvents', 'relayLeadership'], payloadRetentionSeconds: DAY_S }),
    ).resolves.toEqual({});
  });

  it("a service that does not own the topic reads its window (ingress), assuming the dispatcher's until it exists", async () => {
    /** A new source, once it has learned the window: checked against the runs topic's `retentionMs` and `segmentMs`. */
    const learned = async (retentionMs: number, segmentMs: number): Promise<KafkaRunsWindowSource> => {
      const source = new KafkaRunsWindowSource({
        connection: { brokers: fresh.brokers },
        payloadRetentionSeconds: TWO_HOURS_S,
        topics: fresh.topics,
      });
      await source.learn();
      expect(source.current()).toEqual({ topic: fresh.topics.routineRuns, retentionMs, segmentMs, checkIntervalMs: 300_000 });
      return source;
    };
    expect(await readRunsWindow(fresh.kafka, fresh.topics)).toBeUndefined();
    await learned(5_520_000, 1_380_000); // assumed: the dispatcher's window for the payload retention

    await createTopics([
      {
        topic: fresh.topics.routineRuns,
        numPartitions: 1,
        configEntries: [
          { name: 'retention.ms', value: '3600000' },
          { name: 'segment.ms', value: '600000' },
        ],
      },
    ]);
    const source = await learned(3_600_000, 600_000);
    expect(source.copiesExpireBy(new Date('2025-01-01T00:00:00.000Z'))?.toISOString()).toBe('2025-01-01T01:15:00.000Z');
    await source.onModuleDestroy();
    expect(new KafkaRunsWindowSource(undefined).current()).toBeNull();
  });
});
