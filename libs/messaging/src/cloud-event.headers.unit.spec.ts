/**
 * The CloudEvents attributes of every message kind the relays write (Kafka protocol binding,
 * binary mode): beside the service's own headers, never instead of them, the value untouched.
 * Each message is also read back with the CloudEvents SDK's own Kafka binding.
 */
import { BatchedLookup, type PayloadLookup } from '@wts/application';
import { schemaVersionOf, type PayloadRecord } from '@wts/contracts';
import { runFraming } from '@wts/domain';
import type { RecordedEvent } from '@wts/event-store';
import { DELIVERY_ID, ROUTINE_ID, RUN_ID, TEAM_ACCOUNT, WEBHOOK_ID, acceptedDelivery } from '@wts/testing';
import { CloudEvent, Kafka, type KafkaMessage } from 'cloudevents';
import { MESSAGE_SCHEMAS, decodeMessage, encodeEvent } from './kafka-message.codec';
import { DeliveryAcceptedMessage, KafkaHeaders, kafkaTopicNames, routeEvent } from './kafka-topics.contract';
import { relayEntryOf } from './relay.entry';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const RECORDED_AT = new Date('2026-01-15T09:31:02.417Z');
const EVENT_ID = '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b';
const delivery = acceptedDelivery({ idempotencyKey: null });

function recorded(streamId: string, type: string, data: object, metadata: object = {}): RecordedEvent {
  return {
    id: EVENT_ID,
    streamId,
    revision: 3n,
    position: { commit: 42n, prepare: 41n },
    type,
    data,
    metadata: { schemaVersion: schemaVersionOf(type), traceparent: TRACEPARENT, ...metadata },
    createdAt: RECORDED_AT,
  };
}

const at = '2026-01-15T09:30:00.000Z';
/** One event of every type on webhooks.events.v1, as stored. */
const WEBHOOK_TOPIC_EVENTS: readonly [string, object][] = [
  [
    'WebhookEnabled',
    {
      webhookId: WEBHOOK_ID,
      routineId: ROUTINE_ID,
      secretDigest: 'a'.repeat(64),
      defaultAccount: TEAM_ACCOUNT,
      accountOverrideAllowed: false,
      enabledAt: at,
    },
  ],
  ['SecretRotated', { webhookId: WEBHOOK_ID, secretDigest: 'b'.repeat(64), rotatedAt: at }],
  ['WebhookDisabled', { webhookId: WEBHOOK_ID, disabledAt: at }],
  ['WebhookBlocked', { webhookId: WEBHOOK_ID, reason: 'autonomous with an external-sending tool', blockedAt: at }],
  ['WebhookUnblocked', { webhookId: WEBHOOK_ID, unblockedAt: at }],
  ['WebhookHeld', { webhookId: WEBHOOK_ID, heldAt: at, heldBy: 'Ops', releaseAt: null }],
  ['WebhookReleased', { webhookId: WEBHOOK_ID, releasedAt: at, releasedBy: 'Ops', expired: false }],
  ['WebhookRetentionChanged', { webhookId: WEBHOOK_ID, payloadRetentionDays: 3, changedAt: at }],
];

/** The service's own headers of an event, as they were before CloudEvents (unchanged). */
function ownHeaders(event: RecordedEvent, schemaVersion: string): Record<string, string> {
  return {
    'event-type': event.type,
    'event-id': event.id,
    'schema-version': schemaVersion,
    traceparent: TRACEPARENT,
    'stream-id': event.streamId,
    'stream-revision': '3',
    position: '42/41',
  };
}

/** Reads a produced message as a consumer would get it (Buffers) with the CloudEvents SDK; validates it. */
function asCloudEvent(message: { readonly key: string; readonly value: string; readonly headers: object }): CloudEvent<unknown> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) headers[name] = String(value);
  const value = Buffer.from(message.value);
  const kafkaMessage: KafkaMessage<Buffer> = { key: message.key, value, body: value, headers };
  const event = Kafka.toEvent(kafkaMessage) as CloudEvent<unknown>;
  expect(event.validate()).toBe(true);
  return event;
}

describe('CloudEvents headers (Kafka protocol binding, binary mode)', () => {
  it.each(WEBHOOK_TOPIC_EVENTS)('%s on webhooks.events.v1: about the webhook, from the ingress', (type, data) => {
    const event = recorded(`webhook-${WEBHOOK_ID}`, type, data);
    const route = routeEvent(event);
    expect(route).toEqual({ topic: 'webhookEvents', key: WEBHOOK_ID });
    const encoded = encodeEvent(event, route!);
    expect(encoded.headers).toEqual({
      ...ownHeaders(event, '1'),
      ce_specversion: '1.0',
      ce_id: EVENT_ID,
      ce_source: 'urn:wts:ingress:webhooks.events',
      ce_type: `com.wts.${type}`,
      ce_time: '2026-01-15T09:31:02.417Z',
      ce_subject: WEBHOOK_ID,
      'content-type': 'application/json',
    });
    expect(encoded.value).toBe(JSON.stringify(data));
    const cloudEvent = asCloudEvent(encoded);
    expect(cloudEvent).toMatchObject({
      specversion: '1.0',
      id: EVENT_ID,
      source: 'urn:wts:ingress:webhooks.events',
      type: `com.wts.${type}`,
      subject: WEBHOOK_ID,
      time: '2026-01-15T09:31:02.417Z',
      datacontenttype: 'application/json',
      data,
    });
  });

  it('DeliveryAccepted on webhooks.events.v1: about the delivery, the value as it was', () => {
    const event = recorded(`delivery-${DELIVERY_ID}`, 'DeliveryAccepted', delivery);
    const encoded = encodeEvent(event, routeEvent(event)!);
    expect(encoded.headers).toEqual({
      ...ownHeaders(event, '2'),
      ce_specversion: '1.0',
      ce_id: EVENT_ID,
      ce_source: 'urn:wts:ingress:webhooks.events',
      ce_type: 'com.wts.DeliveryAccepted',
      ce_time: '2026-01-15T09:31:02.417Z',
      ce_subject: DELIVERY_ID,
      'content-type': 'application/json',
    });
    expect(encoded.value).toBe(JSON.stringify(delivery));
    expect(asCloudEvent(encoded)).toMatchObject({ subject: DELIVERY_ID, data: delivery, type: 'com.wts.DeliveryAccepted' });
  });

  it('a DeliveryAccepted written as version 1 goes out upcast, with the same attributes (the type never carries the version)', () => {
    const { payloadFormat: _f, payloadBytes: _b, payloadExpiresAt: _e, ...v1Fields } = delivery;
    const event = recorded(
      `delivery-${DELIVERY_ID}`,
      'DeliveryAccepted',
      { ...v1Fields, payload: { format: 'text', text: 'hi' } },
      {
        schemaVersion: 1,
      },
    );
    const encoded = encodeEvent(event, routeEvent(event)!);
    expect(encoded.headers).toMatchObject({ 'schema-version': '2', ce_type: 'com.wts.DeliveryAccepted', ce_subject: DELIVERY_ID });
    expect(encoded.value).not.toContain('hi"');
  });

  it('has no traceparent when the event has none, and the CloudEvents attributes all the same', () => {
    const event = recorded(`delivery-${DELIVERY_ID}`, 'DeliveryAccepted', delivery, { traceparent: '' });
    const encoded = encodeEvent(event, routeEvent(event)!);
    expect(encoded.headers).not.toHaveProperty('traceparent');
    expect(Object.keys(encoded.headers).filter((name) => name.startsWith('ce_'))).toEqual([
      'ce_specversion',
      'ce_id',
      'ce_source',
      'ce_type',
      'ce_time',
      'ce_subject',
    ]);
  });

  describe('RunCreated on routines.runs.v1 (the relay and the CLI replay: relayEntryOf)', () => {
    const topics = kafkaTopicNames('t.');
    const payload: PayloadRecord = { format: 'json', json: '{"alert":"disk full"}' };
    const run = {
      runId: RUN_ID,
      routineId: ROUTINE_ID,
      webhookId: WEBHOOK_ID,
      deliveryId: DELIVERY_ID,
      triggerAccount: TEAM_ACCOUNT,
      routine: { name: 'Triage', tools: [], instructions: 'Triage the alert.', mode: 'supervised' },
      framing: runFraming(delivery),
      status: 'created',
      createdAt: at,
    };
    const lookups = (answer: PayloadLookup | undefined): BatchedLookup<PayloadLookup> =>
      new BatchedLookup(async () => new Map(answer === undefined ? [] : [[DELIVERY_ID, answer]]));
    const runAttributes = {
      ce_specversion: '1.0',
      ce_id: EVENT_ID,
      ce_source: 'urn:wts:run-dispatcher:routines.runs',
      ce_type: 'com.wts.RunCreated',
      ce_time: '2026-01-15T09:31:02.417Z',
      ce_subject: RUN_ID,
      'content-type': 'application/json',
    };

    async function message(answer: PayloadLookup | undefined): Promise<{ key: string; value: string; headers: Record<string, unknown> }> {
      const entry = relayEntryOf(recorded(`run-${RUN_ID}`, 'RunCreated', run), topics, lookups(answer));
      expect(entry.topic).toBe('t.routines.runs.v1');
      await entry.complete?.();
      const { key, value, headers } = entry.message!;
      return { key: String(key), value: String(value), headers: { ...headers } };
    }

    it('framed from its kept payload (version 2): about the run, from the run-dispatcher', async () => {
      const framed = await message({ state: 'kept', payload });
      const event = recorded(`run-${RUN_ID}`, 'RunCreated', run);
      expect(framed.headers).toEqual({ ...ownHeaders(event, '2'), ...runAttributes });
      expect(framed.key).toBe(ROUTINE_ID);
      const cloudEvent = asCloudEvent(framed);
      expect(cloudEvent).toMatchObject({ subject: RUN_ID, type: 'com.wts.RunCreated', source: 'urn:wts:run-dispatcher:routines.runs' });
      expect((cloudEvent.data as { initialMessage: string }).initialMessage).toContain('disk full');
    });

    it('once its payload is removed (version 3): the same attributes, only schema-version moves', async () => {
      const removed = await message({ state: 'erased', removedAt: new Date(at), erasureId: null });
      const event = recorded(`run-${RUN_ID}`, 'RunCreated', run);
      expect(removed.headers).toEqual({ ...ownHeaders(event, '3'), ...runAttributes });
      expect(asCloudEvent(removed).data).toMatchObject({ initialMessage: null, payloadState: 'erased' });
    });

    it('a run written with its message (no framing) needs no payload, and has the same attributes', async () => {
      const { framing: _framing, ...rest } = run;
      const entry = relayEntryOf(
        recorded(`run-${RUN_ID}`, 'RunCreated', { ...rest, framing: null, initialMessage: 'framed before' }, { schemaVersion: 2 }),
        topics,
        lookups(undefined),
      );
      expect(entry.complete).toBeUndefined();
      expect(entry.message?.headers).toMatchObject({ ...runAttributes, 'schema-version': '2' });
    });
  });

  it('the dispatcher decodes a message with them as before: it reads its own headers and ignores the others', () => {
    const event = recorded(`delivery-${DELIVERY_ID}`, 'DeliveryAccepted', delivery);
    const encoded = encodeEvent(event, routeEvent(event)!);
    const decoded = decodeMessage(
      { topic: 'webhooks.events.v1', partition: 0 },
      { key: Buffer.from(encoded.key), value: Buffer.from(encoded.value), headers: { ...encoded.headers }, offset: '0' },
      MESSAGE_SCHEMAS[DeliveryAcceptedMessage.eventType],
    );
    expect(decoded).toMatchObject({ eventId: EVENT_ID, eventType: 'DeliveryAccepted', schemaVersion: 2, traceparent: TRACEPARENT });
    expect(decoded.value).toEqual(delivery);
  });

  it('has one `content-type`, and its own headers first, in their order', () => {
    const event = recorded(`delivery-${DELIVERY_ID}`, 'DeliveryAccepted', delivery);
    const names = Object.keys(encodeEvent(event, routeEvent(event)!).headers);
    expect(names.filter((name) => name.toLowerCase() === 'content-type')).toEqual(['content-type']);
    const own = [
      KafkaHeaders.eventType,
      KafkaHeaders.eventId,
      KafkaHeaders.schemaVersion,
      KafkaHeaders.streamId,
      KafkaHeaders.streamRevision,
      KafkaHeaders.position,
      KafkaHeaders.traceparent,
    ];
    expect(names.slice(0, own.length)).toEqual(own);
  });

  it('refuses to encode for a topic the relays never write (a wiring bug, not a message without a source)', () => {
    const event = recorded(`delivery-${DELIVERY_ID}`, 'DeliveryAccepted', delivery);
    expect(() => encodeEvent(event, { topic: 'webhookEventsDeadLetter', key: WEBHOOK_ID })).toThrow(/no CloudEvents source/);
  });
});
