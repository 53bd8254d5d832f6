import type { DeliveryAccepted } from '@wts/contracts';
import { judgeRepeat } from './idempotency.policy';

const RETENTION_MS = 24 * 60 * 60 * 1000;
const RECEIVED_AT = '2024-05-01T12:00:00.000Z';
const RECEIVED_MS = Date.parse(RECEIVED_AT);
const DIGEST = 'a'.repeat(64);

const original: DeliveryAccepted['data'] = {
  deliveryId: 'dlv_AAAAAAAAAAAAAAAAAAAAAAAA',
  webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA',
  routineId: 'rtn_AAAAAAAAAAAAAAAAAAAAAA',
  runId: 'run_AAAAAAAAAAAAAAAAAAAAAAAA',
  triggerAccount: { accountId: 'acc_AAAAAAAAAAAAAAAAAAAAAA', email: 'ops@example.com' },
  payload: { format: 'text', text: 'hello' },
  contentType: 'text/plain',
  idempotencyKey: 'order-42',
  requestDigest: DIGEST,
  receivedAt: RECEIVED_AT,
};

describe('judgeRepeat', () => {
  it('given the same digest within retention, then a replay carrying the original', () => {
    expect(judgeRepeat(original, DIGEST, RECEIVED_MS + 1_000, RETENTION_MS)).toEqual({ kind: 'replay', original });
  });

  it('given the same digest at the very instant, then a replay', () => {
    expect(judgeRepeat(original, DIGEST, RECEIVED_MS, RETENTION_MS).kind).toBe('replay');
  });

  it('given another digest within retention, then reused', () => {
    expect(judgeRepeat(original, 'b'.repeat(64), RECEIVED_MS + 1_000, RETENTION_MS)).toEqual({ kind: 'reused' });
  });

  it('given one millisecond before retention ends, then still within the window', () => {
    expect(judgeRepeat(original, DIGEST, RECEIVED_MS + RETENTION_MS - 1, RETENTION_MS).kind).toBe('replay');
    expect(judgeRepeat(original, 'b'.repeat(64), RECEIVED_MS + RETENTION_MS - 1, RETENTION_MS).kind).toBe('reused');
  });

  it('given exactly the retention period elapsed, then expired, whatever the digest', () => {
    expect(judgeRepeat(original, DIGEST, RECEIVED_MS + RETENTION_MS, RETENTION_MS)).toEqual({ kind: 'expired' });
    expect(judgeRepeat(original, 'b'.repeat(64), RECEIVED_MS + RETENTION_MS, RETENTION_MS)).toEqual({ kind: 'expired' });
  });

  it('given long past retention, then expired', () => {
    expect(judgeRepeat(original, DIGEST, RECEIVED_MS + 10 * RETENTION_MS, RETENTION_MS).kind).toBe('expired');
  });
});
