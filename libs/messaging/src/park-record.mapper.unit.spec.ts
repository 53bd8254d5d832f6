import type { RecordedEvent } from '@wts/event-store';
import type { KafkaMessage } from 'kafkajs';
import { parkRecordOfMessage, parkSourceOfEvent, parkedIdsOf } from './park-record.mapper';

function message(value: string | null, headers: KafkaMessage['headers'] = {}): KafkaMessage {
  return { key: null, value: value === null ? null : Buffer.from(value), headers, offset: '42', timestamp: '0', attributes: 0 };
}

describe('park records', () => {
  it('given data with string ids, when read, then the delivery and routine are taken; anything else is left out', () => {
    expect(parkedIdsOf({ deliveryId: 'd-1', routineId: 'r-1', other: 1 })).toEqual({ deliveryId: 'd-1', routineId: 'r-1' });
    expect(parkedIdsOf({ deliveryId: 7, routineId: null })).toEqual({});
    expect(parkedIdsOf(null)).toEqual({});
    expect(parkedIdsOf('text')).toEqual({});
  });

  it('given a stored event, when the relay parks it, then the source is its id, stream and type with the ids of its data', () => {
    const event = {
      id: 'e-1',
      streamId: 'delivery-d-1',
      type: 'DeliveryAccepted',
      data: { deliveryId: 'd-1', routineId: 'r-1' },
    } as unknown as RecordedEvent;
    expect(parkSourceOfEvent(event)).toEqual({
      sourceEventId: 'e-1',
      sourceStream: 'delivery-d-1',
      sourceType: 'DeliveryAccepted',
      deliveryId: 'd-1',
      routineId: 'r-1',
    });
  });

  it('given a message with its headers and a JSON value, when parked, then the record names the event and the failure', () => {
    const record = parkRecordOfMessage(
      { topic: 'webhooks.events.v1', partition: 3 },
      message(JSON.stringify({ deliveryId: 'd-1', routineId: 'r-1' }), {
        'event-id': 'e-1',
        'stream-id': 'delivery-d-1',
        'event-type': 'DeliveryAccepted',
      }),
      { disposition: 'park', code: 'undecodable', message: 'bad' },
    );
    expect(record).toEqual({
      sourceEventId: 'e-1',
      sourceStream: 'delivery-d-1',
      sourceType: 'DeliveryAccepted',
      deliveryId: 'd-1',
      routineId: 'r-1',
      error: 'undecodable: bad',
    });
  });

  it('given a message without headers and a value that is not JSON, when parked, then it is named by where it was read', () => {
    const record = parkRecordOfMessage({ topic: 't', partition: 0 }, message('not json'), {
      disposition: 'park',
      code: 'undecodable',
      message: 'bad',
    });
    expect(record).toEqual({
      sourceEventId: 'kafka:t/0/42',
      sourceStream: 'kafka:t/0/42',
      sourceType: 'unknown',
      error: 'undecodable: bad',
    });
  });
});
