import { EventStoreUnavailableError } from '@wts/event-store';
import { DISPATCH_ATTEMPTS_BEFORE_PARKING, classifyDispatchFailure, parksAfter } from './dispatch-failure.policy';

describe('dispatch failure policy', () => {
  it('given the store is unavailable, then transient: retried in place', () => {
    expect(classifyDispatchFailure(new EventStoreUnavailableError('busy'))).toEqual({
      kind: 'transient',
      code: 'store_unavailable',
      message: 'EventStoreUnavailableError: busy',
    });
  });

  it('given any other error, then deterministic: parked after a few attempts', () => {
    expect(classifyDispatchFailure(new TypeError('undefined is not a function'))).toEqual({
      kind: 'deterministic',
      code: 'dispatch_failed',
      message: 'TypeError: undefined is not a function',
    });
  });

  it('given something thrown that is not an Error, then deterministic with its text', () => {
    expect(classifyDispatchFailure('boom')).toEqual({ kind: 'deterministic', code: 'dispatch_failed', message: 'boom' });
  });

  it('parks after five deterministic failures, not before', () => {
    expect(DISPATCH_ATTEMPTS_BEFORE_PARKING).toBe(5);
    expect(parksAfter(4)).toBe(false);
    expect(parksAfter(5)).toBe(true);
  });
});
