import { createHash } from 'node:crypto';
import { isWellFormedId, timeOrderedId } from '../ids/id.factory';
import {
  ERASURE_LIMITS,
  containsDigest,
  payloadMatches,
  selectsFromReadModel,
  validateErasureSelectors,
  type ErasureSelectors,
  type ErasureValidation,
} from './erasure-selection.rules';

const DLV = 'dlv_AAAAAAAAAAAAAAAAAAAAAA';
const DLV2 = 'dlv_BBBBBBBBBBBBBBBBBBBBBB';
const RTN = 'rtn_AAAAAAAAAAAAAAAAAAAAAA';

const problemsOf = (input: ErasureSelectors): readonly string[] => {
  const result: ErasureValidation = validateErasureSelectors(input);
  return result.kind === 'invalid' ? result.problems : [];
};
const criteriaOf = (input: ErasureSelectors) => {
  const result = validateErasureSelectors(input);
  if (result.kind !== 'valid') throw new Error(`expected valid, got ${result.problems.join('; ')}`);
  return result.criteria;
};

describe('validateErasureSelectors', () => {
  it('given no selector, when validated, then it is refused: an empty selection would erase everything', () => {
    expect(problemsOf({})).toEqual([expect.stringContaining('select at least one of delivery_ids')]);
  });

  it('given delivery ids with repeats, when validated, then they are kept once each, in order', () => {
    expect(criteriaOf({ deliveryIds: [DLV2, DLV, DLV2] }).selection).toEqual({ deliveryIds: [DLV2, DLV] });
  });

  it.each([
    ['none', [], 'delivery_ids must name at least one delivery'],
    ['too many', Array.from({ length: ERASURE_LIMITS.maxDeliveryIds + 1 }, () => DLV), 'delivery_ids names at most 1000 deliveries'],
    ['a run id', ['run_AAAAAAAAAAAAAAAAAAAAAA'], 'each of delivery_ids must be a delivery id (dlv_…)'],
    ['a short body', ['dlv_short'], 'each of delivery_ids must be a delivery id (dlv_…)'],
  ])('given delivery_ids with %s, when validated, then the problem names delivery_ids', (_why, deliveryIds, message) => {
    expect(problemsOf({ deliveryIds })).toEqual([message]);
  });

  it('given 1000 delivery ids, when validated, then they are accepted', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `dlv_${String(i).padStart(22, 'A')}`);
    expect(criteriaOf({ deliveryIds: ids }).selection.deliveryIds).toHaveLength(1000);
  });

  it('given a malformed routine id, when validated, then routine_id is named', () => {
    expect(problemsOf({ routineId: 'routine-1' })).toEqual(['routine_id must be a routine id (rtn_…)']);
    expect(criteriaOf({ routineId: RTN }).selection).toEqual({ routineId: RTN });
  });

  it('given a trigger account, when validated, then it must be an email and is recorded lower-cased', () => {
    expect(criteriaOf({ triggerAccount: 'Ana@Example.COM' }).selection).toEqual({ triggerAccount: 'ana@example.com' });
    for (const bad of ['ana', 'ana@', '@example.com', 'a b@example.com', `${'a'.repeat(250)}@x.io`])
      expect(problemsOf({ triggerAccount: bad })).toEqual(['trigger_account must be an email address']);
  });

  it('given a received range with offsets, when validated, then both ends are recorded in UTC', () => {
    expect(criteriaOf({ receivedAfter: '2026-01-01T01:00:00+01:00', receivedBefore: '2026-01-02T00:00:00.250Z' }).selection).toEqual({
      receivedAfter: '2026-01-01T00:00:00.000Z',
      receivedBefore: '2026-01-02T00:00:00.250Z',
    });
  });

  it.each([['2026-01-01'], ['2026-02-31T00:00:00Z'], ['2026-01-01T00:00:00'], ['2026-W01'], ['yesterday']])(
    'given received_after %s, when validated, then it is refused as not an RFC 3339 date-time',
    (value) => {
      expect(problemsOf({ receivedAfter: value })).toEqual([expect.stringMatching(/^received_after must be an RFC 3339 date-time/)]);
      expect(problemsOf({ receivedBefore: value })).toEqual([expect.stringMatching(/^received_before must be an RFC 3339 date-time/)]);
    },
  );

  it('given received_after at or after received_before, when validated, then the range is refused', () => {
    const at = '2026-01-01T00:00:00Z';
    expect(problemsOf({ receivedAfter: at, receivedBefore: at })).toEqual(['received_after must be earlier than received_before']);
    expect(problemsOf({ receivedAfter: '2026-01-02T00:00:00Z', receivedBefore: at })).toEqual([
      'received_after must be earlier than received_before',
    ]);
  });

  it('given contains, when validated, then only its digest is in the selection and the needle is lower-cased', () => {
    const criteria = criteriaOf({ contains: 'Ana@Example.com' });
    expect(criteria.needle).toBe('ana@example.com');
    expect(criteria.selection).toEqual({ containsDigest: createHash('sha256').update('ana@example.com').digest('hex') });
    expect(JSON.stringify(criteria.selection)).not.toContain('ana@');
    expect(containsDigest('ANA@EXAMPLE.COM')).toBe(criteria.selection.containsDigest);
  });

  it('given contains of 2 or 513 characters, when validated, then it is refused; 3 and 512 (counted in code points) are accepted', () => {
    expect(problemsOf({ contains: 'ab' })).toEqual(['contains must be 3–512 characters']);
    expect(problemsOf({ contains: 'a'.repeat(513) })).toEqual(['contains must be 3–512 characters']);
    expect(criteriaOf({ contains: 'abc' }).needle).toBe('abc');
    expect(criteriaOf({ contains: 'a'.repeat(512) }).needle).toHaveLength(512);
    expect(criteriaOf({ contains: '😀😀😀' }).needle).toBe('😀😀😀');
  });

  it('given several bad selectors, when validated, then every problem is listed', () => {
    expect(problemsOf({ routineId: 'x', contains: 'a', triggerAccount: 'nope' })).toHaveLength(3);
  });

  it('given structured selectors, then the read model selects; given contains alone, then the store is scanned', () => {
    expect(selectsFromReadModel(criteriaOf({ routineId: RTN, contains: 'abc' }).selection)).toBe(true);
    expect(selectsFromReadModel(criteriaOf({ contains: 'abc' }).selection)).toBe(false);
  });
});

describe('payloadMatches', () => {
  it('matches case-insensitively inside the text', () => {
    expect(payloadMatches('{"email":"Ana@Example.com"}', 'ana@example.com')).toBe(true);
    expect(payloadMatches('{"email":"bob@example.com"}', 'ana@example.com')).toBe(false);
  });
});

describe('erasure ids', () => {
  it('are era_ ids, time-ordered', () => {
    const first = timeOrderedId('erasure', 1_700_000_000_000, new Uint8Array(16).fill(255));
    const second = timeOrderedId('erasure', 1_700_000_000_001, new Uint8Array(16).fill(0));
    expect(first.startsWith('era_')).toBe(true);
    expect(isWellFormedId('erasure', first)).toBe(true);
    expect(first < second).toBe(true);
  });
});
