import type { RecordedEvent } from '@wts/event-store';
import { acceptedDelivery } from '@wts/testing';
import {
  MESSAGE_SCHEMAS,
  MessageDecodeError,
  UnsupportedSchemaVersionError,
  decodeMessage,
  encodeEvent,
  type RawMessage,
} from './kafka-message.codec';
import { DeliveryAcceptedMessage, kafkaTopicNames, routeEvent } from './kafka-topics.contract';

const delivery: DeliveryAcceptedMessage.Value = acceptedDelivery({ idempotencyKey: null });

function recorded(overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    id: '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b',
    streamId: `delivery-${delivery.deliveryId}`,
    revision: 0n,
    position: { commit: 42n, prepare: 42n },
    type: 'DeliveryAccepted',
    data: delivery,
    metadata: { schemaVersion: 2, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    createdAt: new Date(0),
    ...overrides,
  };
}

function raw(event = recorded()): RawMessage & { headers: Record<string, string> } {
  const route = routeEvent(event);
  if (!route) throw new Error('not routed');
  const encoded = encodeEvent(event, route);
  return { key: Buffer.from(encoded.key), value: Buffer.from(encoded.value), headers: { ...encoded.headers }, offset: '7' };
}

const schema = MESSAGE_SCHEMAS[DeliveryAcceptedMessage.eventType];
const at = { topic: 'webhooks.events.v1', partition: 2 };

describe('Kafka contract: routing', () => {
  it('sends webhook lifecycle and accepted deliveries to webhooks.events.v1 keyed by webhook, runs to routines.runs.v1 keyed by routine', () => {
    expect(routeEvent(recorded())).toEqual({ topic: 'webhookEvents', key: delivery.webhookId });
    expect(routeEvent({ streamId: 'webhook-whk_1', type: 'SecretRotated', data: { webhookId: 'whk_1' } })).toEqual({
      topic: 'webhookEvents',
      key: 'whk_1',
    });
    expect(routeEvent({ streamId: 'run-run_1', type: 'RunCreated', data: { routineId: 'rtn_1' } })).toEqual({
      topic: 'routineRuns',
      key: 'rtn_1',
    });
  });

  it('publishes nothing else', () => {
    expect(routeEvent({ streamId: 'routine-rtn_1', type: 'RoutineCreated', data: { routineId: 'rtn_1' } })).toBeUndefined();
    expect(routeEvent({ streamId: 'parked-x', type: 'DispatchParked', data: {} })).toBeUndefined();
    expect(routeEvent({ streamId: 'delivery-dlv_1', type: 'RunCreated', data: { routineId: 'rtn_1' } })).toBeUndefined();
  });

  it('names topics with an optional prefix', () => {
    expect(kafkaTopicNames()).toEqual({
      webhookEvents: 'webhooks.events.v1',
      webhookEventsDeadLetter: 'webhooks.events.v1.dlq',
      routineRuns: 'routines.runs.v1',
      relayLeadership: 'relay.leadership.v1',
    });
    expect(kafkaTopicNames('t.').routineRuns).toBe('t.routines.runs.v1');
  });
});

describe('Kafka codec', () => {
  it('encodes the data as JSON with the contract headers', () => {
    const event = recorded();
    const encoded = encodeEvent(event, { topic: 'webhookEvents', key: delivery.webhookId });
    expect(JSON.parse(encoded.value)).toEqual(delivery);
    expect(encoded.headers).toEqual({
      'event-type': 'DeliveryAccepted',
      'event-id': event.id,
      'schema-version': '2',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      'stream-id': `delivery-${delivery.deliveryId}`,
      'stream-revision': '0',
      position: '42/42',
      // CloudEvents, binary mode (cloud-event.headers.unit.spec.ts has every message kind).
      ce_specversion: '1.0',
      ce_id: event.id,
      ce_source: 'urn:wts:ingress:webhooks.events',
      ce_type: 'com.wts.DeliveryAccepted',
      ce_time: '1970-01-01T00:00:00.000Z',
      ce_subject: delivery.deliveryId,
      'content-type': 'application/json',
    });
  });

  it('decodes what it encodes, with the position to read the routine at', () => {
    const decoded = decodeMessage(at, raw(), schema);
    expect(decoded).toMatchObject({
      ...at,
      offset: '7',
      key: delivery.webhookId,
      eventType: 'DeliveryAccepted',
      schemaVersion: 2,
      streamRevision: 0n,
      position: { commit: 42n, prepare: 42n },
    });
    expect(decoded.value).toEqual(delivery);
  });

  it("decodes a signed delivery's sender", () => {
    const signed = { ...delivery, sender: { scheme: 'github', eventType: 'push' } };
    expect(decodeMessage(at, { ...raw(), value: Buffer.from(JSON.stringify(signed)) }, schema).value).toEqual(signed);
  });

  it.each([
    [
      'a schema version that is not a number',
      (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, 'schema-version': 'two' } }),
      /schema version "two"/,
    ],
    [
      'a schema version that is not an integer',
      (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, 'schema-version': '2.0' } }),
      /schema version "2.0"/,
    ],
    ['schema version 0', (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, 'schema-version': '0' } }), /schema version "0"/],
    [
      'a negative schema version',
      (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, 'schema-version': '-1' } }),
      /schema version "-1"/,
    ],
    [
      'a missing schema version',
      (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, 'schema-version': '' } }),
      /schema-version/,
    ],
    ['a missing event id', (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, 'event-id': '' } }), /event-id/],
    ['a bad position', (m: ReturnType<typeof raw>) => ({ ...m, headers: { ...m.headers, position: 'soon' } }), /position/],
    ['a value that is not JSON', (m: ReturnType<typeof raw>) => ({ ...m, value: Buffer.from('{') }), /not JSON/],
    ['no value', (m: ReturnType<typeof raw>) => ({ ...m, value: null }), /no value/],
    ['a key that is not the webhook', (m: ReturnType<typeof raw>) => ({ ...m, key: Buffer.from('whk_2') }), /key differs/],
    [
      'a value missing a field',
      (m: ReturnType<typeof raw>) => ({ ...m, value: Buffer.from(JSON.stringify({ ...delivery, runId: undefined })) }),
      /runId/,
    ],
    [
      'a payload of the wrong shape',
      (m: ReturnType<typeof raw>) => ({ ...m, value: Buffer.from(JSON.stringify({ ...delivery, payload: { format: 'xml' } })) }),
      /payload/,
    ],
    [
      'a sender of an unknown scheme',
      (m: ReturnType<typeof raw>) => ({
        ...m,
        value: Buffer.from(JSON.stringify({ ...delivery, sender: { scheme: 'bearer', eventType: null } })),
      }),
      /sender.scheme/,
    ],
    [
      'a sender whose event type is not text',
      (m: ReturnType<typeof raw>) => ({
        ...m,
        value: Buffer.from(JSON.stringify({ ...delivery, sender: { scheme: 'github', eventType: 7 } })),
      }),
      /sender.eventType/,
    ],
  ])('refuses %s as poison', (_what, mutate, message) => {
    expect(() => decodeMessage(at, mutate(raw()), schema)).toThrow(MessageDecodeError);
    expect(() => decodeMessage(at, mutate(raw()), schema)).toThrow(message);
  });

  it('reports a newer schema version as not yet readable (the message waits for an upgrade), not as poison', () => {
    const newer = { ...raw(), headers: { ...raw().headers, 'schema-version': '3' } };
    expect(() => decodeMessage(at, newer, schema)).toThrow(UnsupportedSchemaVersionError);
    expect(() => decodeMessage(at, newer, schema)).not.toThrow(MessageDecodeError);
    expect(() => decodeMessage(at, newer, schema)).toThrow(/schema version 3 is newer than this build reads \(1, 2\)/);
    // Checked before anything else: a newer version may well have another shape.
    expect(() => decodeMessage(at, { ...newer, value: Buffer.from('{"a newer":"shape"}') }, schema)).toThrow(UnsupportedSchemaVersionError);
    // A build that reads it decodes it.
    expect(decodeMessage(at, newer, schema, { supportedSchemaVersions: [1, 2, 3] }).schemaVersion).toBe(3);
  });

  it('refuses, as poison, an older version this build no longer reads', () => {
    expect(() => decodeMessage(at, raw(), schema, { supportedSchemaVersions: [3, 4] })).toThrow(MessageDecodeError);
    expect(() => decodeMessage(at, raw(), schema, { supportedSchemaVersions: [3, 4] })).toThrow(
      /schema version "2" is no longer supported/,
    );
  });

  it('never puts a payload on the topic: a delivery written before payloads were kept apart goes out without it, as version 2', () => {
    const { payloadFormat: _f, payloadBytes: _b, payloadExpiresAt: _e, ...v1Fields } = delivery;
    const v1 = recorded({ data: { ...v1Fields, payload: { format: 'json', json: '{"secret":"x"}' } }, metadata: { schemaVersion: 1 } });
    const encoded = encodeEvent(v1, { topic: 'webhookEvents', key: delivery.webhookId });
    expect(encoded.value).not.toContain('secret');
    expect(encoded.headers['schema-version']).toBe('2');
    expect(JSON.parse(encoded.value)).toEqual({ ...delivery, payloadBytes: 14, payloadExpiresAt: null });
  });

  it('still decodes a version 1 message (its payload inline) produced before an upgrade', () => {
    const { payloadFormat: _f, payloadBytes: _b, payloadExpiresAt: _e, ...v1Fields } = delivery;
    const value = Buffer.from(JSON.stringify({ ...v1Fields, payload: { format: 'text', text: 'hi' } }));
    const message = { ...raw(), value, headers: { ...raw().headers, 'schema-version': '1' } };
    expect(decodeMessage(at, message, schema).schemaVersion).toBe(1);
    const broken = { ...message, value: Buffer.from(JSON.stringify({ ...v1Fields, payload: { format: 'text' } })) };
    expect(() => decodeMessage(at, broken, schema)).toThrow(/value.payload is neither/);
  });
});
