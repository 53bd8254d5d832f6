import { DISPATCH_FAILURE_CASES } from '../../../test/support/dispatch-failure.fixtures';
import { dispatchConsumerFailure } from './dispatch-failure.filter';

describe('dispatch failures on the Kafka path', () => {
  // Transient: retried in place while the store is unavailable; deterministic: parked (after a few attempts), retrying will not fix it.
  it.each(DISPATCH_FAILURE_CASES)('given $given, then $kind: $code', ({ thrown, kind, code, message }) => {
    expect(dispatchConsumerFailure(thrown)).toEqual({ disposition: kind === 'transient' ? 'retry' : 'park', code, message });
  });
});
