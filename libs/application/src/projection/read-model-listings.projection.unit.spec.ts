import { StreamCategories, type DeliveryAccepted } from '@wts/contracts';
import { PROJECTED_PREFIXES, toProjectionChanges } from './read-model.projection';
import { POSITION, recorded } from './testing/projection.fixtures';

/** The one delivery of these tests: its ids and its trigger account, in every version of its event. */
const DELIVERY = {
  deliveryId: 'dlv_1',
  webhookId: 'whk_1',
  routineId: 'rtn_1',
  runId: 'run_1',
  triggerAccount: { accountId: 'acc_1', email: 'a@example.com' },
} as const;

/** A version 2 DeliveryAccepted (its payload kept apart). */
function accepted(overrides: Partial<DeliveryAccepted['data']> = {}): DeliveryAccepted {
  return {
    type: 'DeliveryAccepted',
    data: {
      ...DELIVERY,
      payloadFormat: 'json',
      payloadBytes: 2,
      payloadExpiresAt: '2024-05-31T10:00:00.000Z',
      contentType: 'application/json',
      idempotencyKey: null,
      requestDigest: '0'.repeat(64),
      receivedAt: '2024-05-01T10:00:00.000Z',
      ...overrides,
    },
  };
}

describe('toProjectionChanges: listings and the rest', () => {
  it('a delivery (here a version 1 event, its payload inline), a run and a park are one row each, as before', () => {
    const accepted = toProjectionChanges(
      recorded({
        type: 'DeliveryAccepted',
        data: {
          ...DELIVERY,
          payload: { format: 'text', text: 'x' },
          contentType: 'text/plain',
          idempotencyKey: null,
          requestDigest: '0'.repeat(64),
          receivedAt: '2024-05-01T10:00:00.000Z',
        },
      }),
    );
    expect(accepted).toEqual([
      {
        kind: 'delivery',
        position: POSITION,
        row: {
          delivery_id: 'dlv_1',
          routine_id: 'rtn_1',
          webhook_id: 'whk_1',
          run_id: 'run_1',
          received_at: '2024-05-01T10:00:00.000Z',
          trigger_account: { account_id: 'acc_1', email: 'a@example.com' },
          content_type: 'text/plain',
          idempotency_key: null,
          // Written before payloads were kept apart (schema version 1, inline payload): it never expires.
          payload_expires_at: null,
        },
      },
    ]);
    const parked = toProjectionChanges(
      recorded({
        type: 'DispatchParked',
        data: {
          sourceEventId: 'evt-0',
          sourceStream: 'delivery-dlv_2',
          sourceType: 'DeliveryAccepted',
          error: 'boom',
          parkedAt: '2024-05-01T10:00:01.000Z',
        },
      }),
    );
    expect(parked).toEqual([
      {
        kind: 'parked',
        position: POSITION,
        row: {
          source_event_id: 'evt-0',
          source_stream: 'delivery-dlv_2',
          source_type: 'DeliveryAccepted',
          delivery_id: 'dlv_2',
          routine_id: null,
          error: 'boom',
          parked_at: '2024-05-01T10:00:01.000Z',
        },
      },
    ]);
  });

  it("a version 2 delivery's row carries its payload's expiry, in the one form every stored time has", () => {
    const [change] = toProjectionChanges(recorded(accepted({ payloadExpiresAt: '2024-05-31T12:00:00+02:00' }), { schemaVersion: 2 }));
    expect(change).toMatchObject({ kind: 'delivery', row: { delivery_id: 'dlv_1', payload_expires_at: '2024-05-31T10:00:00.000Z' } });
  });

  it('PayloadsRemoved is one removal of its deliveries, with its reason and time; recorded twice, it is the same removal twice', () => {
    const event = {
      type: 'PayloadsRemoved',
      data: { reason: 'erased', erasureId: 'era_1', removedAt: '2024-06-01T00:00:00Z', deliveryIds: ['dlv_1', 'dlv_2'] },
    };
    const removal = {
      kind: 'payload_removal',
      position: POSITION,
      row: { deliveryIds: ['dlv_1', 'dlv_2'], state: 'erased', removedAt: '2024-06-01T00:00:00.000Z' },
    };
    expect(toProjectionChanges(recorded(event))).toEqual([removal]);
    // The read model leaves a payload already removed as it is: the repeat changes nothing there.
    expect(toProjectionChanges(recorded(event))).toEqual([removal]);
    expect(toProjectionChanges(recorded({ ...event, data: { ...event.data, reason: 'expired', erasureId: null } }))).toEqual([
      { ...removal, row: { ...removal.row, state: 'expired' } },
    ]);
  });

  it('a withheld run is no run, and erasure progress is neither a listing nor an audit entry', () => {
    const withheld = { runId: 'run_1', deliveryId: 'dlv_1', reason: 'payload_removed', withheldAt: '2024-06-01T00:00:00.000Z' };
    expect(toProjectionChanges(recorded({ type: 'RunWithheld', data: withheld }))).toEqual([]);
    expect(
      toProjectionChanges(
        recorded({ type: 'ErasureProgressed', data: { erasureId: 'era_1', cursor: null, scanned: 5, selected: 2, erased: 2 } }),
      ),
    ).toEqual([]);
    expect(
      toProjectionChanges(
        recorded({
          type: 'ErasureFinished',
          data: { erasureId: 'era_1', status: 'done', selected: 2, erased: 2, finishedAt: '2024-06-01T00:00:01.000Z' },
        }),
      ),
    ).toEqual([]);
  });

  it('an idempotency index and a type this build does not know become nothing', () => {
    expect(
      toProjectionChanges(
        recorded({
          type: 'IdempotencyGenerationAdvanced',
          data: { indexId: 'x', generation: 2, deliveryId: 'dlv_1', advancedAt: '2024-05-01T10:00:00.000Z' },
        }),
      ),
    ).toEqual([]);
    expect(toProjectionChanges(recorded({ type: 'SomethingNew', data: { webhookId: 'whk_1' } }))).toEqual([]);
  });

  it('reads the listed streams and the audited ones, and nothing else', () => {
    expect([...PROJECTED_PREFIXES].sort()).toEqual(
      [
        StreamCategories.delivery,
        StreamCategories.run,
        StreamCategories.parked,
        StreamCategories.account,
        StreamCategories.routine,
        StreamCategories.webhook,
        StreamCategories.webhookSlot,
        StreamCategories.apiKey,
        StreamCategories.operatorAction,
        StreamCategories.payloadRemoval,
        StreamCategories.erasure,
      ].sort(),
    );
    expect(PROJECTED_PREFIXES).not.toContain(StreamCategories.idempotencyKey);
  });
});
