import { schemaVersionOf } from './event.types';
import { upcastEvent, writtenSchemaVersion } from './upcast';

const runDataV1 = {
  runId: 'run_A',
  routineId: 'rtn_A',
  webhookId: 'whk_A',
  deliveryId: 'dlv_A',
  triggerAccount: { accountId: 'acc_A', email: 'ops@example.com' },
  routine: { name: 'Triage', tools: [], instructions: 'File it.', mode: 'supervised' },
  initialMessage: 'framed',
  payload: { format: 'text', text: 'the payload, a second time' },
  status: 'created',
  createdAt: '2024-05-01T12:00:00.000Z',
};

describe('upcastEvent', () => {
  it('given a RunCreated written as schema version 1, then it reads without the duplicated payload, as version 2', () => {
    const upcast = upcastEvent({ type: 'RunCreated', data: runDataV1, metadata: { schemaVersion: 1, eventId: 'e' } });
    const { payload: _payload, ...withoutPayload } = runDataV1;
    expect(upcast.data).toEqual(withoutPayload);
    expect(upcast.metadata).toEqual({ schemaVersion: 2, eventId: 'e' });
  });

  it('given a RunCreated without any schema version (older still), then it is read as version 1 and upcast', () => {
    const upcast = upcastEvent({ type: 'RunCreated', data: runDataV1, metadata: {} });
    expect(upcast.data).not.toHaveProperty('payload');
  });

  it("given a RunCreated of today's version, then it is returned as it is", () => {
    const current = { type: 'RunCreated', data: { runId: 'run_A' }, metadata: { schemaVersion: 2 } };
    expect(upcastEvent(current)).toBe(current);
  });

  it('given another type, then it is returned as it is', () => {
    const delivery = { type: 'DeliveryAccepted', data: { payload: { format: 'text', text: 'x' } }, metadata: { schemaVersion: 1 } };
    expect(upcastEvent(delivery)).toBe(delivery);
  });

  it('reads the written schema version defensively', () => {
    expect(writtenSchemaVersion({ schemaVersion: 3 })).toBe(3);
    expect(writtenSchemaVersion({ schemaVersion: '2' })).toBe(1);
    expect(writtenSchemaVersion(null)).toBe(1);
    expect(schemaVersionOf('RunCreated')).toBe(2);
    expect(schemaVersionOf('DeliveryAccepted')).toBe(1);
  });
});
