import { formatPosition, type CheckpointStore, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { schemaVersionOf } from '@wts/contracts';
import { ConfigResourceTypes, type Kafka } from 'kafkajs';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  MessageCollector,
  appendDeliveries,
  appendRoutineWithWebhook,
  appendSizedRuns,
  shortId,
  topicSize,
  type CatalogFixture,
} from '../../../test/support/kafka-test-kit';
import { eventually } from '@wts/testing';
import { relayCheckpointName } from './event.relay';
import type { MessagingLogger } from './kafka-client.factory';
import { useRelayTestBed } from '../../../test/support/relay-test.harness';
import { KafkaRelaySupervisor, type KafkaRelaySettings } from './kafka-relay.supervisor';
import { Relays, routeEvent } from './kafka-topics.contract';

async function configValue(kafka: Kafka, type: ConfigResourceTypes, name: string, config: string): Promise<string | undefined> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const described = await admin.describeConfigs({ resources: [{ type, name, configNames: [config] }], includeSynonyms: false });
    return described.resources[0]?.configEntries.find((entry) => entry.configName === config)?.configValue;
  } finally {
    await admin.disconnect();
  }
}

/** Keeps what the relay logs, to look for a line. */
function recordingLogger(): MessagingLogger & { readonly lines: { level: string; fields: object; message: string }[] } {
  const lines: { level: string; fields: object; message: string }[] = [];
  return {
    lines,
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
    error: (fields, message) => lines.push({ level: 'error', fields, message }),
  };
}

/**
 * The relay against the real broker: order, keys and headers; checkpoint only after the broker
 * acknowledged; resume from the checkpoint; one forwarder among replicas.
 */
describe('Kafka relay (real broker)', () => {
  const bed = useRelayTestBed('relay');

  function relay(overrides: Partial<KafkaRelaySettings> = {}): KafkaRelaySupervisor {
    return bed().relay({ ...Relays.ingressWebhooks, name: bed().name }, overrides);
  }

  /** Waits until the relay's checkpoint (`checkpointName`: the bed's relay's unless given) is at `commit`. */
  async function checkpointAt(
    commit: bigint | undefined,
    timeoutMs: number,
    what: string,
    checkpointName = relayCheckpointName(bed().name),
  ): Promise<void> {
    await eventually(async () => (await bed().store.checkpoints().load(checkpointName))?.commit === commit, timeoutMs, what);
  }

  /**
   * Evidence that nothing was sent twice, without waiting "long enough": once the relay's checkpoint
   * is at the store's last event, everything it will send is acknowledged, so the topic's own size
   * counts any duplicate; the reader then has exactly that many messages.
   */
  async function expectSentOnce(
    reader: MessageCollector,
    expected: number,
    checkpointName = relayCheckpointName(bed().name),
    topic = bed().topics.webhookEvents,
  ): Promise<void> {
    const last = (await stored(topic === bed().topics.routineRuns ? ['run-'] : undefined)).at(-1)?.position;
    await checkpointAt(last?.commit, 30_000, 'the checkpoint at the last event', checkpointName);
    expect(await topicSize(bed().kafka, topic)).toBe(expected);
    await eventually(async () => reader.messages.length >= expected, 20_000, `${expected} messages read`);
    expect(reader.messages).toHaveLength(expected);
    expect(reader.distinctEventIds().size).toBe(expected);
  }

  function collector(topic = bed().topics.webhookEvents): Promise<MessageCollector> {
    return bed().reader([topic]);
  }

  async function stored(prefixes = ['webhook-', 'delivery-']): Promise<RecordedEvent[]> {
    const events = await bed().store.readAll({ limit: 100_000, filter: { streamPrefixes: prefixes } });
    return events.filter((event) => routeEvent(event) !== undefined);
  }

  /** The run relay: the messages that carry payloads (framed), so the large ones. */
  function runRelay(overrides: Partial<KafkaRelaySettings> = {}): KafkaRelaySupervisor {
    return relay({ definition: { ...Relays.dispatcherRuns, name: bed().name }, ...overrides });
  }

  async function fixtures(webhooks: number): Promise<CatalogFixture[]> {
    const out: CatalogFixture[] = [];
    for (let i = 0; i < webhooks; i++) out.push(await appendRoutineWithWebhook(bed().store));
    return out;
  }

  it("never forwards a signing secret: a signed webhook's sealed secret stays on its own stream in the store", async () => {
    const webhookId = shortId('whk');
    const secretId = shortId('sgs');
    const ciphertext = randomBytes(48).toString('base64url');
    const metadata = (id: string): Record<string, unknown> => ({ eventId: id, correlationId: id, causationId: id, schemaVersion: 1 });
    const sealedId = randomUUID();
    await bed().store.append(
      `signing_secret-${webhookId}`,
      [
        {
          id: sealedId,
          type: 'SigningSecretSealed',
          data: { webhookId, secretId, sealed: { keyId: 'k1', iv: 'aXY', ciphertext, tag: 'dGFn' }, sealedAt: new Date().toISOString() },
          metadata: metadata(sealedId),
        },
      ],
      'any',
    );
    const enabledId = randomUUID();
    await bed().store.append(
      `webhook-${webhookId}`,
      [
        {
          id: enabledId,
          type: 'WebhookEnabled',
          data: {
            webhookId,
            routineId: shortId('rtn'),
            verification: { scheme: 'github', secretId },
            defaultAccount: { accountId: shortId('acc'), email: 'ops@example.com' },
            accountOverrideAllowed: false,
            enabledAt: new Date().toISOString(),
          },
          metadata: metadata(enabledId),
        },
      ],
      'no_stream',
    );
    await relay().start();
    const reader = await collector();
    await expectSentOnce(reader, 1);
    expect(reader.messages[0]!.headers['event-type']).toBe('WebhookEnabled');
    for (const message of reader.messages) expect(message.value?.toString('utf8')).not.toContain(ciphertext);
  });

  it('forwards in store order per key, with the contract headers, and checkpoints the last position', async () => {
    const hooks = await fixtures(3);
    for (let round = 0; round < 10; round++) for (const hook of hooks) await appendDeliveries(bed().store, hook, 1);
    await bed().store.append(
      'account-catalog',
      [
        {
          id: '6f1d7c53-3f5e-4c61-9d1b-0f1f2f3f4f5f',
          type: 'AccountConnected',
          data: { accountId: 'acc_x', email: 'x@example.com', aliases: [], connectedAt: new Date().toISOString() },
          metadata: {},
        },
      ],
      'any',
    );

    const relayed = relay();
    await relayed.start();
    const reader = await collector();
    const expected = await stored();
    expect(expected).toHaveLength(33);
    await eventually(async () => reader.messages.length >= expected.length, 20_000, `${expected.length} messages`);

    const byId = new Map(expected.map((event) => [event.id, event]));
    for (const message of reader.messages) {
      const event = byId.get(message.headers['event-id']);
      if (!event) throw new Error(`unexpected message ${JSON.stringify(message.headers)}`);
      const data = event.data as { webhookId: string };
      expect(message.key).toBe(data.webhookId);
      expect(message.headers).toEqual({
        'event-type': event.type,
        'event-id': event.id,
        'schema-version': String(schemaVersionOf(event.type)),
        traceparent: (event.metadata as { traceparent: string }).traceparent,
        'stream-id': event.streamId,
        'stream-revision': '0',
        position: formatPosition(event.position),
        // CloudEvents, binary mode (cloud-events.relay.int.spec.ts decodes them with the SDK).
        ce_specversion: '1.0',
        ce_id: event.id,
        ce_source: 'urn:wts:ingress:webhooks.events',
        ce_type: `com.wts.${event.type}`,
        ce_time: event.createdAt.toISOString(),
        ce_subject: event.type === 'DeliveryAccepted' ? (event.data as { deliveryId: string }).deliveryId : data.webhookId,
        'content-type': 'application/json',
      });
      expect(JSON.parse(message.value?.toString('utf8') ?? 'null')).toEqual(event.data);
    }
    expect(reader.messages).toHaveLength(expected.length);
    // Per key: one partition, in store order.
    for (const hook of hooks) {
      const mine = reader.messages.filter((message) => message.key === hook.webhookId);
      expect(new Set(mine.map((message) => message.partition)).size).toBe(1);
      const positions = mine
        .sort((a, b) => Number(a.offset) - Number(b.offset))
        .map((message) => byId.get(message.headers['event-id'])?.position.commit ?? -1n);
      expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(mine[0].headers['event-type']).toBe('WebhookEnabled');
    }
    const last = expected[expected.length - 1].position;
    await eventually(
      async () =>
        formatPosition((await bed().store.checkpoints().load(relayCheckpointName(bed().name))) ?? { commit: -1n, prepare: -1n }) ===
        formatPosition(last),
      5000,
      'the checkpoint',
    );
  }, 60_000);

  it('saves the checkpoint only after the broker acknowledged everything up to it', async () => {
    const hook = (await fixtures(1))[0];
    const real = bed().store.checkpoints();
    const violations: string[] = [];
    let saves = 0;
    // Every save is checked against the broker: the topic must already hold every event up to it.
    const checking: CheckpointStore = {
      load: (checkpoint) => real.load(checkpoint),
      save: async (checkpoint: string, position: GlobalPosition) => {
        saves++;
        const upTo = (await stored()).filter((event) => event.position.commit <= position.commit).length;
        const held = await topicSize(bed().kafka, bed().topics.webhookEvents);
        if (held < upTo) violations.push(`checkpoint ${formatPosition(position)} covers ${upTo} events, the topic holds ${held}`);
        await real.save(checkpoint, position);
      },
    };
    await relay({ checkpoints: checking, tuning: { maxBatchSize: 25, lingerMs: 5 } }).start();
    for (let chunk = 0; chunk < 8; chunk++) await appendDeliveries(bed().store, hook, 25);
    const expected = (await stored()).length;
    await eventually(
      async () => (await real.load(relayCheckpointName(bed().name)))?.commit === (await stored()).at(-1)?.position.commit,
      30_000,
      'the final checkpoint',
    );
    expect(await topicSize(bed().kafka, bed().topics.webhookEvents)).toBe(expected);
    expect(saves).toBeGreaterThan(3);
    expect(violations).toEqual([]);
  }, 60_000);

  it('resumes from its checkpoint after a restart: nothing lost, nothing sent twice', async () => {
    const hook = (await fixtures(1))[0];
    await appendDeliveries(bed().store, hook, 100);
    const first = relay();
    await first.start();
    const reader = await collector();
    await eventually(async () => reader.messages.length >= 101, 20_000, 'the first 101 messages');
    await first.stop();

    await appendDeliveries(bed().store, hook, 100); // while no relay runs
    const second = relay();
    await second.start();
    await eventually(async () => reader.messages.length >= 201, 20_000, 'all 201 messages');
    await expectSentOnce(reader, 201);
    expect(new Set(reader.messages.map((message) => message.headers['event-id']))).toEqual(
      new Set((await stored()).map((event) => event.id)),
    );
  }, 60_000);

  it('with two replicas, only the leader forwards; a joining replica does not move the leadership; the other takes over from the checkpoint', async () => {
    const hook = (await fixtures(1))[0];
    // Every leadership change of each replica, as it happens (not sampled): the terms must not overlap.
    const changes: { replica: 'a' | 'b'; at: number; state: string }[] = [];
    const leadershipLog = (replica: 'a' | 'b'): MessagingLogger => ({
      info: (fields) => {
        const state = (fields as { state?: string }).state;
        if (state !== undefined) changes.push({ replica, at: performance.now(), state });
      },
      warn: () => undefined,
      error: () => undefined,
    });
    const a = relay({ logger: leadershipLog('a') });
    const b = relay({ logger: leadershipLog('b') });
    await a.start();
    await eventually(async () => a.isForwarding(), 30_000, 'the first replica to lead');
    const reader = await collector();
    {
      await appendDeliveries(bed().store, hook, 50);
      // The second replica joins while events flow: the sticky assignment keeps partition 0 with
      // the leader, whose term survives the rebalance (same member): nothing is sent twice.
      const joining = b.start();
      for (let chunk = 0; chunk < 5; chunk++) await appendDeliveries(bed().store, hook, 50);
      await joining;
      // The second replica is in the group (start() resolves once joined) and the leader leads again
      // after the rebalance, before more flows.
      await eventually(async () => a.isForwarding(), 30_000, 'the leader forwarding after the rebalance');
      await appendDeliveries(bed().store, hook, 50);
      await expectSentOnce(reader, 351);
      expect(a.isForwarding()).toBe(true);
      expect(b.isForwarding()).toBe(false);

      await a.stop();
      await eventually(async () => b.isForwarding(), 30_000, 'the follower to take over');
      await appendDeliveries(bed().store, hook, 100);
      await eventually(async () => reader.distinctEventIds().size >= 451, 20_000, 'all 451 events');
      // A graceful handover checkpoints before leaving: still no duplicate.
      await expectSentOnce(reader, 451);
      expect(reader.distinctEventIds()).toEqual(new Set((await stored()).map((event) => event.id)));
    }
    // Never two leaders: each replica's leading terms, from its own reports, never overlap the other's.
    const terms = (replica: 'a' | 'b'): [number, number][] => {
      const mine = changes.filter((change) => change.replica === replica);
      return mine.flatMap((change, i) =>
        change.state === 'leading' ? [[change.at, mine[i + 1]?.at ?? Infinity] as [number, number]] : [],
      );
    };
    expect(terms('a').length).toBeGreaterThan(0);
    expect(terms('b').length).toBeGreaterThan(0);
    for (const [aFrom, aTo] of terms('a'))
      for (const [bFrom, bTo] of terms('b'))
        expect({ aFrom, aTo, bFrom, bTo, overlap: aFrom < bTo && bFrom < aTo }).toMatchObject({ overlap: false });
  }, 90_000);
  it('forwards a backlog of 600 runs of 2 KiB payloads and one of a ~2 MB payload, framed from the payload store, on a broker with the default message.max.bytes', async () => {
    // The broker keeps its default limit (about 1 MiB per record batch): the topic-level
    // max.message.bytes the relay sets when it creates the topic is what admits the large one.
    expect(await configValue(bed().kafka, ConfigResourceTypes.BROKER, '1', 'message.max.bytes')).toBe('1048588');
    const hook = (await fixtures(1))[0];
    const backlog = await appendSizedRuns(bed().store, hook, 600, 2048);
    const [large] = await appendSizedRuns(bed().store, hook, 1, 2 * 1024 * 1024);
    const after = await appendSizedRuns(bed().store, hook, 10, 100);
    const started = Date.now();
    await runRelay().start();
    const reader = await collector(bed().topics.routineRuns);
    const expected = await stored(['run-']);
    expect(expected).toHaveLength(600 + 1 + 10);
    await eventually(async () => reader.messages.length >= expected.length, 60_000, `${expected.length} messages`);
    process.stderr.write(`[relay] 600 × 2 KiB + 1 × 2 MiB + 10 runs forwarded in ${Date.now() - started} ms\n`);
    await expectSentOnce(reader, expected.length, relayCheckpointName(bed().name), bed().topics.routineRuns);

    expect(await configValue(bed().kafka, ConfigResourceTypes.TOPIC, bed().topics.routineRuns, 'max.message.bytes')).toBe(
      String(16 * 1024 * 1024),
    );
    expect(reader.messages).toHaveLength(expected.length);
    const inOrder = reader.messages.sort((a, b) => Number(a.offset) - Number(b.offset)).map((message) => message.headers['event-id']);
    expect(inOrder).toEqual(expected.map((event) => event.id));
    const largeMessage = reader.messages.find((message) => message.headers['event-id'] === large.id);
    expect(largeMessage?.value?.length).toBeGreaterThan(2 * 1024 * 1024);
    // As consumers have always read it (version 2): the message framed from the payload in place of the framing.
    expect(largeMessage?.headers['schema-version']).toBe('2');
    const value = JSON.parse(largeMessage?.value?.toString('utf8') ?? 'null') as Record<string, unknown>;
    const { framing: _framing, ...recorded } = large.data as Record<string, unknown>;
    expect(value).toEqual({ ...recorded, initialMessage: expect.stringContaining('xxxxxxxx') as unknown });
    expect(backlog.every((event) => reader.distinctEventIds().has(event.id))).toBe(true);
    await checkpointAt(after[after.length - 1].position.commit, 5000, 'the checkpoint after the last event');
  }, 90_000);

  it('caps each produce request by bytes: a backlog of 600 runs of 2 KiB payloads passes a topic at the broker default limit without one refusal', async () => {
    const logger = recordingLogger();
    const hook = (await fixtures(1))[0];
    await appendSizedRuns(bed().store, hook, 600, 2048); // 500 of them (the count cap) would be ~1.2 MB once framed
    await runRelay({ logger, maxMessageBytes: 1048588 }).start();
    const reader = await collector(bed().topics.routineRuns);
    await eventually(async () => reader.messages.length >= 600, 30_000, '600 messages');
    await expectSentOnce(reader, 600, relayCheckpointName(bed().name), bed().topics.routineRuns);
    expect(logger.lines.filter((line) => line.level !== 'info')).toEqual([]);
  }, 60_000);

  it('splits a request the topic refuses; a message above the topic limit is parked in the store after a few attempts, and later events flow', async () => {
    const logger = recordingLogger();
    const limit = 64 * 1024;
    const hook = (await fixtures(1))[0];
    // 300 runs of ~2.4 KiB once framed: one request under the relay's 1 MiB cap, but ten times the topic's limit.
    await appendSizedRuns(bed().store, hook, 300, 2048);
    const [tooLarge] = await appendSizedRuns(bed().store, hook, 1, 100 * 1024);
    await appendSizedRuns(bed().store, hook, 20, 100);
    await runRelay({ logger, maxMessageBytes: limit, tuning: { retryMaxDelayMs: 200, tooLargeAttemptsBeforeParking: 3 } }).start();
    expect(await configValue(bed().kafka, ConfigResourceTypes.TOPIC, bed().topics.routineRuns, 'max.message.bytes')).toBe(String(limit));
    const reader = await collector(bed().topics.routineRuns);
    const expected = (await stored(['run-'])).filter((event) => event.id !== tooLarge.id);

    // Everything but the large message arrives, in order: the relay is not wedged by it.
    await eventually(async () => reader.messages.length >= expected.length, 30_000, `the ${expected.length} other messages`);
    await expectSentOnce(reader, expected.length, relayCheckpointName(bed().name), bed().topics.routineRuns);
    expect(reader.messages.sort((a, b) => Number(a.offset) - Number(b.offset)).map((message) => message.headers['event-id'])).toEqual(
      expected.map((event) => event.id),
    );
    expect(logger.lines.filter((line) => line.message.includes('splitting')).length).toBeGreaterThan(1);
    const attempts = logger.lines.filter(
      (line) => line.level === 'error' && (line.fields as { eventId?: string }).eventId === tooLarge.id,
    ).length;
    expect(attempts).toBe(3);

    // The large one is recorded in the store, with why, where the parked listings and the CLI find it.
    const [parked] = await bed().store.readStream(`parked-${tooLarge.id}`);
    expect(parked).toMatchObject({ type: 'DispatchParked' });
    expect(parked.data).toMatchObject({
      sourceEventId: tooLarge.id,
      sourceStream: tooLarge.streamId,
      sourceType: 'RunCreated',
      deliveryId: (tooLarge.data as { deliveryId: string }).deliveryId,
      routineId: hook.routineId,
    });
    expect((parked.data as { error: string }).error).toMatch(/larger than topic .* accepts/);
    await checkpointAt(expected[expected.length - 1].position.commit, 10_000, 'the checkpoint past every event');
  }, 90_000);
});
