import type { DeliveryAccepted, DeliveryEvent, PayloadRecord } from '@wts/contracts';
import { T0, acceptedDelivery, specFor } from '@wts/testing';
import { deliveryDecider, payloadBytes, type AcceptDelivery } from './delivery.decider';

const DAY_MS = 24 * 60 * 60 * 1000;
const PAYLOAD: PayloadRecord = { format: 'json', json: '{"id":12345678901234567890}' };
const DIGEST_A = '1'.repeat(64);
const DIGEST_B = '2'.repeat(64);

const spec = specFor(deliveryDecider);

/** The request behind acceptedDelivery(), made at the instant it is received. */
function command(overrides: Partial<AcceptDelivery> = {}): AcceptDelivery {
  const {
    receivedAt,
    payloadFormat: _format,
    payloadBytes: _bytes,
    payloadExpiresAt,
    ...request
  } = acceptedDelivery({ requestDigest: DIGEST_A });
  return {
    type: 'AcceptDelivery',
    ...request,
    payload: PAYLOAD,
    now: receivedAt,
    retentionMs: DAY_MS,
    payloadExpiresAt: payloadExpiresAt ?? receivedAt,
    ...overrides,
  };
}

function acceptedFrom(c: AcceptDelivery): DeliveryAccepted {
  return {
    type: 'DeliveryAccepted',
    data: {
      deliveryId: c.deliveryId,
      webhookId: c.webhookId,
      routineId: c.routineId,
      runId: c.runId,
      triggerAccount: c.triggerAccount,
      payloadFormat: c.payload.format,
      payloadBytes: payloadBytes(c.payload),
      payloadExpiresAt: c.payloadExpiresAt,
      contentType: c.contentType,
      idempotencyKey: c.idempotencyKey,
      requestDigest: c.requestDigest,
      receivedAt: c.now,
    },
  };
}

const original: DeliveryEvent = acceptedFrom(command());
const later = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

describe('deliveryDecider', () => {
  it('starts with no delivery', () => {
    expect(deliveryDecider.initialState()).toBeNull();
  });

  it('given a fresh stream, when a delivery is accepted, then DeliveryAccepted carries every field', () => {
    spec
      .given([])
      .when(command())
      .then([
        {
          type: 'DeliveryAccepted',
          data: {
            deliveryId: 'dlv_AAAAAAAAAAAAAAAAAAAAAAAA',
            webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA',
            routineId: 'rtn_AAAAAAAAAAAAAAAAAAAAAA',
            runId: 'run_AAAAAAAAAAAAAAAAAAAAAAAA',
            triggerAccount: { accountId: 'acc_AAAAAAAAAAAAAAAAAAAAAA', email: 'Team@Example.com' },
            payloadFormat: 'json',
            payloadBytes: 27,
            payloadExpiresAt: '2024-05-31T12:00:00.000Z',
            contentType: 'application/json',
            idempotencyKey: 'order-42',
            requestDigest: DIGEST_A,
            receivedAt: T0,
          },
        },
      ]);
  });

  it('given a fresh stream, when a text delivery without a key is accepted, then it records the text and a null key', () => {
    const c = command({ payload: { format: 'text', text: 'hello\n' }, contentType: 'text/plain', idempotencyKey: null });
    spec
      .given([])
      .when(c)
      .then([acceptedFrom(c)]);
  });

  it('never carries a secret: the event data has exactly the documented fields', () => {
    const { decision } = spec.given([]).when(command());
    expect(decision.kind).toBe('accepted');
    if (decision.kind !== 'accepted') return;
    expect(Object.keys(decision.events[0]?.data ?? {}).sort()).toEqual(
      [
        'contentType',
        'deliveryId',
        'idempotencyKey',
        'payloadBytes',
        'payloadExpiresAt',
        'payloadFormat',
        'receivedAt',
        'requestDigest',
        'routineId',
        'runId',
        'triggerAccount',
        'webhookId',
      ].sort(),
    );
  });

  it('given an accepted delivery, when the same request repeats within retention, then no events (a replay)', () => {
    spec
      .given([original])
      .when(command({ now: later(60_000) }))
      .then([]);
  });

  it('given an accepted delivery, when the same request repeats just before retention ends, then no events', () => {
    spec
      .given([original])
      .when(command({ now: later(DAY_MS - 1) }))
      .then([]);
  });

  it('given an accepted delivery, when a request with the same digest repeats under another delivery id, then the digest decides: no events', () => {
    spec
      .given([original])
      .when(command({ deliveryId: 'dlv_BBBBBBBBBBBBBBBBBBBBBBBB', now: later(1_000) }))
      .then([]);
  });

  it('given an accepted delivery, when another request reuses the key within retention, then idempotency_key_reused', () => {
    spec
      .given([original])
      .when(command({ requestDigest: DIGEST_B, now: later(60_000) }))
      .thenRejects('idempotency_key_reused', 'this idempotency key was used for a different request');
  });

  it('given an accepted delivery, when another request reuses the key at the very same instant, then idempotency_key_reused', () => {
    spec
      .given([original])
      .when(command({ requestDigest: DIGEST_B }))
      .thenRejects('idempotency_key_reused');
  });

  it('given a delivery accepted before canonical digests (its digest over the bytes), when the request brings that digest as its legacy one, then a replay: no events', () => {
    spec
      .given([original])
      .when(command({ requestDigest: DIGEST_B, legacyRequestDigest: DIGEST_A, now: later(1_000) }))
      .then([]);
  });

  it('given an accepted delivery, when neither the digest nor the legacy digest is the stored one, then idempotency_key_reused', () => {
    spec
      .given([original])
      .when(command({ requestDigest: DIGEST_B, legacyRequestDigest: DIGEST_B, now: later(1_000) }))
      .thenRejects('idempotency_key_reused');
  });

  it('given an accepted delivery past retention, when decided here, then no new event on this stream (the caller moves on)', () => {
    spec
      .given([original])
      .when(command({ requestDigest: DIGEST_B, now: later(DAY_MS) }))
      .then([]);
  });

  it('keeps the first delivery when folding', () => {
    const second = acceptedFrom(command({ deliveryId: 'dlv_BBBBBBBBBBBBBBBBBBBBBBBB' }));
    const state = [original, second].reduce(deliveryDecider.evolve, deliveryDecider.initialState());
    expect(state).toEqual(original.data);
  });
});
