import { Streams, schemaVersionOf } from '@wts/contracts';
import { derivedEventId } from '@wts/domain';
import { useTempEventStore } from '../../../../test/support/temp-event-store.kit';
import { ParkDispatchUseCase, type DispatchToPark } from './park-dispatch.usecase';

const NOW = new Date('2024-05-01T12:00:00.000Z');
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('ParkDispatchUseCase', () => {
  const temp = useTempEventStore('park');
  let park: ParkDispatchUseCase;

  beforeEach(() => {
    park = new ParkDispatchUseCase(temp.store, { now: () => NOW });
  });

  const delivery: DispatchToPark = {
    sourceEventId: '0190f0e0-0000-7000-8000-000000000001',
    sourceStream: Streams.delivery('dlv_AAAAAAAAAAAAAAAAAAAAAAAA'),
    sourceType: 'DeliveryAccepted',
    deliveryId: 'dlv_AAAAAAAAAAAAAAAAAAAAAAAA',
    routineId: 'rtn_AAAAAAAAAAAAAAAAAAAAAA',
    error: 'routine_not_found: routine rtn_AAAAAAAAAAAAAAAAAAAAAA does not exist',
  };

  it("given a delivery, when parked, then DispatchParked on parked-<source id> at the clock's time, with a derived id and the causation of its delivery", async () => {
    await park.execute(delivery, TRACEPARENT);
    const [parked, ...more] = await temp.store.readStream(Streams.parked(delivery.sourceEventId));
    expect(more).toEqual([]);
    expect(parked.type).toBe('DispatchParked');
    expect(parked.id).toBe(derivedEventId('DispatchParked', delivery.sourceEventId));
    expect(parked.data).toEqual({ ...delivery, parkedAt: NOW.toISOString() });
    expect(parked.metadata).toEqual({
      eventId: parked.id,
      correlationId: delivery.deliveryId,
      causationId: delivery.sourceEventId,
      schemaVersion: schemaVersionOf('DispatchParked'),
      traceparent: TRACEPARENT,
    });
  });

  it('given a message that names no delivery, when parked, then correlated with its own source id and no trace', async () => {
    const message: DispatchToPark = {
      sourceEventId: 'kafka:webhooks.events.v1/0/42',
      sourceStream: 'unknown',
      sourceType: 'unknown',
      error: 'undecodable: header "event-type" is missing',
    };
    await park.execute(message);
    const [parked] = await temp.store.readStream(Streams.parked(message.sourceEventId));
    expect(parked.data).toEqual({ ...message, parkedAt: NOW.toISOString() });
    expect(parked.metadata).toMatchObject({ correlationId: message.sourceEventId, causationId: message.sourceEventId, traceparent: '' });
  });

  it('given the source is parked already, when parked again, then nothing more is written', async () => {
    await park.execute(delivery);
    await park.execute({ ...delivery, error: 'again' });
    const parked = await temp.store.readStream(Streams.parked(delivery.sourceEventId));
    expect(parked).toHaveLength(1);
    expect(parked[0].data).toMatchObject({ error: delivery.error });
  });
});
