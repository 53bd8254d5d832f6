import type { DeliveryAccepted } from '@wts/contracts';
import { T0, acceptedDelivery } from '@wts/testing';
import { judgeRepeat } from './idempotency.policy';

const RETENTION_MS = 24 * 60 * 60 * 1000;
const RECEIVED_MS = Date.parse(T0);
const DIGEST = 'a'.repeat(64);

const original: DeliveryAccepted['data'] = acceptedDelivery({ requestDigest: DIGEST, receivedAt: T0 });

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
