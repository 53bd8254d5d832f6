import { DISPATCH_FAILURE_CASES } from '../../../../test/support/dispatch-failure.fixtures';
import { DISPATCH_ATTEMPTS_BEFORE_PARKING, classifyDispatchFailure, parksAfter } from './dispatch-failure.policy';

describe('dispatch failure policy', () => {
  it.each(DISPATCH_FAILURE_CASES)('given $given, then $kind: $code', ({ thrown, kind, code, message }) => {
    expect(classifyDispatchFailure(thrown)).toEqual({ kind, code, message });
  });

  it('parks after five deterministic failures, not before', () => {
    expect(DISPATCH_ATTEMPTS_BEFORE_PARKING).toBe(5);
    expect(parksAfter(4)).toBe(false);
    expect(parksAfter(5)).toBe(true);
  });
});
