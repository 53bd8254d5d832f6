/**
 * The relays' messages are CloudEvents (Kafka protocol binding, binary mode), read from the real
 * broker as any consumer reads them and decoded with the CloudEvents SDK's own Kafka binding: every
 * message of both topics — each webhook lifecycle type, accepted deliveries, runs framed from their
 * payloads — is a valid event with the stored event's id, time and data, a stable type and source,
 * and the delivery, run or webhook as its subject.
 */
import type { RecordedEvent } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { CloudEvent, Kafka as CloudEventsKafka, type KafkaMessage } from 'cloudevents';
import {
  appendDeliveries,
  appendRoutineWithWebhook,
  appendSizedRuns,
  stored,
  type CollectedMessage,
} from '../../../test/support/kafka-test-kit';
import { useRelayTestBed } from '../../../test/support/relay-test.harness';
import { Relays, routeEvent } from './kafka-topics.contract';

describe('CloudEvents on Kafka (real broker, both relays)', () => {
  const currentBed = useRelayTestBed('ce');

  /** The message as a consumer hands it to the SDK: headers as strings (kafkajs gives Buffers), the value as received. */
  function cloudEventOf(message: CollectedMessage): CloudEvent<unknown> {
    if (message.key === null || message.value === null) throw new Error(`message ${message.offset} has no key or value`);
    const kafkaMessage: KafkaMessage<Buffer> = { key: message.key, value: message.value, body: message.value, headers: message.headers };
    expect(CloudEventsKafka.isEvent(kafkaMessage)).toBe(true);
    const event = CloudEventsKafka.toEvent(kafkaMessage);
    if (Array.isArray(event)) throw new Error('a batch, not one event');
    return event as CloudEvent<unknown>;
  }

  it('every message on webhooks.events.v1 and routines.runs.v1 decodes as a valid CloudEvent of its stored event', async () => {
    const bed = currentBed();
    const hook = await appendRoutineWithWebhook(bed.store); // WebhookEnabled
    const now = new Date().toISOString();
    const lifecycle = [
      stored('SecretRotated', { webhookId: hook.webhookId, secretDigest: 'c'.repeat(64), rotatedAt: now }),
      stored('WebhookHeld', { webhookId: hook.webhookId, heldAt: now, heldBy: 'Ops', releaseAt: null }),
      stored('WebhookReleased', { webhookId: hook.webhookId, releasedAt: now, releasedBy: 'Ops', expired: false }),
      stored('WebhookRetentionChanged', { webhookId: hook.webhookId, payloadRetentionDays: 3, changedAt: now }),
      stored('WebhookBlocked', { webhookId: hook.webhookId, reason: 'autonomous with an external-sending tool', blockedAt: now }),
      stored('WebhookUnblocked', { webhookId: hook.webhookId, unblockedAt: now }),
    ];
    await bed.store.append(`webhook-${hook.webhookId}`, lifecycle, 'any');
    await appendDeliveries(bed.store, hook, 3);
    const runs = await appendSizedRuns(bed.store, hook, 3, 512); // their deliveries too
    await bed.store.append(`webhook-${hook.webhookId}`, [stored('WebhookDisabled', { webhookId: hook.webhookId, disabledAt: now })], 'any');

    const published = (await bed.store.readAll({ limit: 10_000 })).filter((event) => routeEvent(event) !== undefined);
    const byId = new Map<string, RecordedEvent>(published.map((event) => [event.id, event]));
    expect(new Set(published.map((event) => event.type))).toEqual(
      new Set([
        'WebhookEnabled',
        'SecretRotated',
        'WebhookHeld',
        'WebhookReleased',
        'WebhookRetentionChanged',
        'WebhookBlocked',
        'WebhookUnblocked',
        'WebhookDisabled',
        'DeliveryAccepted',
        'RunCreated',
      ]),
    );

    for (const [suffix, definition] of [
      ['in', Relays.ingressWebhooks],
      ['runs', Relays.dispatcherRuns],
    ] as const) {
      await bed.relay({ ...definition, name: `${bed.name}-${suffix}` }).start();
    }
    const reader = await bed.reader([bed.topics.webhookEvents, bed.topics.routineRuns]);
    await eventually(async () => reader.messages.length >= published.length, 60_000, `${published.length} messages`);
    expect(reader.messages).toHaveLength(published.length);

    const runsTopic = reader.of(bed.topics.routineRuns);
    expect(runsTopic).toHaveLength(runs.length);
    for (const message of reader.messages) {
      const original = byId.get(message.headers['event-id']);
      if (!original) throw new Error(`unexpected message ${JSON.stringify(message.headers)}`);
      const event = cloudEventOf(message);
      expect(event.validate()).toBe(true);
      const data = original.data as Record<string, string>;
      const isRun = original.type === 'RunCreated';
      expect(message.topic).toBe(isRun ? bed.topics.routineRuns : bed.topics.webhookEvents);
      expect({
        specversion: event.specversion,
        id: event.id,
        source: event.source,
        type: event.type,
        subject: event.subject,
        time: event.time,
        datacontenttype: event.datacontenttype,
        partitionkey: event.partitionkey,
      }).toEqual({
        specversion: '1.0',
        id: original.id,
        source: isRun ? 'urn:wts:run-dispatcher:routines.runs' : 'urn:wts:ingress:webhooks.events',
        type: `com.wts.${original.type}`,
        subject: isRun ? data.runId : original.type === 'DeliveryAccepted' ? data.deliveryId : data.webhookId,
        time: original.createdAt.toISOString(),
        datacontenttype: 'application/json',
        // The binding's key mapping: the message key is the partitioning extension's partitionkey.
        partitionkey: isRun ? hook.routineId : hook.webhookId,
      });
      // The data is the message's value, as the service's own consumers read it.
      expect(event.data).toEqual(JSON.parse(message.value!.toString('utf8')));
      if (isRun) {
        const { framing: _framing, ...run } = data as Record<string, unknown>;
        expect(event.data).toEqual({ ...run, initialMessage: expect.stringContaining('xxxx') as unknown });
      } else {
        expect(event.data).toEqual(original.data);
      }
      // Beside the service's own headers, never instead of them.
      expect(message.headers).toMatchObject({
        'event-type': original.type,
        'event-id': original.id,
        'stream-id': original.streamId,
        'stream-revision': original.revision.toString(),
        position: `${original.position.commit}/${original.position.prepare}`,
      });
    }
  }, 90_000);
});
