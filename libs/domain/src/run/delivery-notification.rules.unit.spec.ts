import { checkDeliveryNotice, type StoredDelivery } from './delivery-notification.rules';

const DELIVERY = 'dlv_AAAAAAAAAAAAAAAAAAAAAAAA';
const data = { deliveryId: DELIVERY, routineId: 'rtn_AAAAAAAAAAAAAAAAAAAAAA', payload: { format: 'json', json: '{"a":1}' } };
const stored: StoredDelivery = {
  id: '0190d6f0-0000-7000-8000-000000000001',
  streamId: `delivery-${DELIVERY}`,
  type: 'DeliveryAccepted',
  data,
};
const notice = { eventId: stored.id, streamId: stored.streamId, data };

describe('checkDeliveryNotice (Kafka is a notification, the store is the truth)', () => {
  it('given the stored DeliveryAccepted, when the message says the same, then verified — with the stored one to dispatch', () => {
    expect(checkDeliveryNotice({ ...notice, data: JSON.parse(JSON.stringify(data)) as typeof data }, stored)).toEqual({
      kind: 'verified',
      stored,
    });
  });

  it('given nothing in the store, when a message names the delivery, then not_in_store naming it', () => {
    expect(checkDeliveryNotice(notice, undefined)).toEqual({
      kind: 'not_in_store',
      reason: `unverified_notification: the event store holds no DeliveryAccepted for delivery ${DELIVERY}`,
    });
  });

  it('given another event type at the stream, then not_in_store', () => {
    expect(checkDeliveryNotice(notice, { ...stored, type: 'SomethingElse' }).kind).toBe('not_in_store');
  });

  it.each([
    ['another event id', { ...notice, eventId: '0190d6f0-0000-7000-8000-000000000002' }, 'event id'],
    ['another stream', { ...notice, streamId: 'delivery-dlv_BBBBBBBBBBBBBBBBBBBBBBBB' }, 'stream'],
    ['another payload', { ...notice, data: { ...data, payload: { format: 'text', text: 'x' } } }, 'data'],
    ['another routine', { ...notice, data: { ...data, routineId: 'rtn_BBBBBBBBBBBBBBBBBBBBBB' } }, 'data'],
    ['an extra field', { ...notice, data: { ...data, extra: true } }, 'data'],
    ['a missing field', { ...notice, data: { deliveryId: DELIVERY } }, 'data'],
  ])('given the stored one, when the message carries %s, then differs, naming what (never its values)', (_, message, what) => {
    const verdict = checkDeliveryNotice(message, stored);
    expect(verdict).toEqual({
      kind: 'differs',
      stored,
      reason: `unverified_notification: the message differs from the stored DeliveryAccepted of delivery ${DELIVERY} (${what})`,
    });
  });

  it('given a message whose delivery id is not a delivery id, then the reason does not quote it', () => {
    const verdict = checkDeliveryNotice({ ...notice, data: { deliveryId: '<script>alert(1)</script>' } }, undefined);
    expect(verdict).toEqual({
      kind: 'not_in_store',
      reason: 'unverified_notification: the event store holds no DeliveryAccepted for a malformed delivery id',
    });
  });
});
