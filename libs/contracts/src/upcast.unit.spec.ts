import { schemaVersionOf } from './event.contract';
import { comparableDeliveryData, upcastEvent, writtenSchemaVersion } from './upcast';

/** The one delivery of these tests and its run: their ids and the trigger account, in both events. */
const DELIVERY = {
  deliveryId: 'dlv_A',
  webhookId: 'whk_A',
  routineId: 'rtn_A',
  runId: 'run_A',
  triggerAccount: { accountId: 'acc_A', email: 'ops@example.com' },
};

const runDataV1 = {
  ...DELIVERY,
  routine: { name: 'Triage', tools: [], instructions: 'File it.', mode: 'supervised' },
  initialMessage: 'framed',
  payload: { format: 'text', text: 'the payload, a second time' },
  status: 'created',
  createdAt: '2024-05-01T12:00:00.000Z',
};

const deliveryDataV1 = {
  ...DELIVERY,
  payload: { format: 'text', text: 'héllo' },
  contentType: 'text/plain',
  idempotencyKey: null,
  requestDigest: 'a'.repeat(64),
  receivedAt: '2024-05-01T12:00:00.000Z',
};

describe('upcastEvent', () => {
  it('given a RunCreated written as schema version 1, then it reads without the duplicated payload, its stored message kept as legacy, as version 3', () => {
    const upcast = upcastEvent({ type: 'RunCreated', data: runDataV1, metadata: { schemaVersion: 1, eventId: 'e' } });
    const { payload: _payload, initialMessage: _message, ...rest } = runDataV1;
    expect(upcast.data).toEqual({ ...rest, framing: null, legacyInitialMessage: 'framed' });
    expect(upcast.metadata).toEqual({ schemaVersion: 3, eventId: 'e' });
  });

  it('given a RunCreated of version 2, then its stored message is kept as legacy and it has no framing', () => {
    const { payload: _payload, ...v2 } = runDataV1;
    const upcast = upcastEvent({ type: 'RunCreated', data: v2, metadata: { schemaVersion: 2 } });
    expect(upcast.data).toMatchObject({ framing: null, legacyInitialMessage: 'framed' });
    expect(upcast.data).not.toHaveProperty('initialMessage');
  });

  it('given a RunCreated without any schema version (older still), then it is read as version 1 and upcast', () => {
    const upcast = upcastEvent({ type: 'RunCreated', data: runDataV1, metadata: {} });
    expect(upcast.data).not.toHaveProperty('payload');
    expect(upcast.data).not.toHaveProperty('initialMessage');
  });

  it("given a RunCreated of today's version, then it is returned as it is", () => {
    const current = { type: 'RunCreated', data: { runId: 'run_A' }, metadata: { schemaVersion: 3 } };
    expect(upcastEvent(current)).toBe(current);
  });

  it('given a DeliveryAccepted of version 1, then its payload is read as legacy, described, and never expires', () => {
    const upcast = upcastEvent({ type: 'DeliveryAccepted', data: deliveryDataV1, metadata: { schemaVersion: 1 } });
    const { payload, ...rest } = deliveryDataV1;
    expect(upcast.data).toEqual({
      ...rest,
      payloadFormat: 'text',
      payloadBytes: 6,
      payloadExpiresAt: null,
      legacyPayload: payload,
    });
    expect(upcast.metadata).toEqual({ schemaVersion: 2 });
  });

  it('given another type, then it is returned as it is', () => {
    const other = { type: 'WebhookEnabled', data: { payload: 'x' }, metadata: { schemaVersion: 1 } };
    expect(upcastEvent(other)).toBe(other);
  });

  it('reads the written schema version defensively', () => {
    expect(writtenSchemaVersion({ schemaVersion: 3 })).toBe(3);
    expect(writtenSchemaVersion({ schemaVersion: '2' })).toBe(1);
    expect(writtenSchemaVersion(null)).toBe(1);
    expect(schemaVersionOf('RunCreated')).toBe(3);
    expect(schemaVersionOf('DeliveryAccepted')).toBe(2);
  });
});

describe('comparableDeliveryData', () => {
  it('compares a version 1 delivery with its payload and the same delivery relayed without it as equal', () => {
    const relayedAfterUpgrade = { ...(comparableDeliveryData(deliveryDataV1) as object) };
    expect(comparableDeliveryData(deliveryDataV1)).toEqual(relayedAfterUpgrade);
    expect(relayedAfterUpgrade).not.toHaveProperty('legacyPayload');
    expect(relayedAfterUpgrade).not.toHaveProperty('payload');
  });

  it('still tells deliveries apart on their other fields (the payload itself is in the store, never on Kafka)', () => {
    expect(comparableDeliveryData(deliveryDataV1)).not.toEqual(comparableDeliveryData({ ...deliveryDataV1, routineId: 'rtn_B' }));
  });
});
